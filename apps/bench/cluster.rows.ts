import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { benchNotification } from '../../test/support/notification-fixture.js';
import type { HttpResult, HttpRow } from './http-row.interface.js';
import type { PgFloorConfig } from './pg-floor-http-server.worker.js';
import { startServerProcess } from './server-process.js';
import { startServerWorker, type ServerWorker } from './server-worker.js';

/** The PostgreSQL the cluster rows use (a fresh schema per row, dropped after). */
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SESSIONS = 30;
// The default: under a full load on few cores a short TTL lets a late heartbeat cost a node its
// sessions, and the takeover time below is what a user of the default sees.
const LEASE_TTL_MS = 10_000;

/** Where load goes: a node of the app, or the floor server. */
interface Endpoint {
  readonly url: string;
}

interface Node extends Endpoint {
  readonly child: ChildProcess;
}

type Session = { sessionId: string; loopId: string; token: string };

function startNode(databaseUrl: string, adminToken: string): Promise<Node> {
  return startServerProcess(
    {
      PN_DATABASE_URL: databaseUrl,
      PN_ADMIN_TOKEN: adminToken,
      PN_LOOP_CAPACITY: '1000000',
      PN_LEASE_TTL_MS: String(LEASE_TTL_MS),
    },
    { showWarnings: true },
  );
}

async function call(
  url: string,
  token: string,
  method = 'POST',
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json().catch(() => ({}))) as Record<string, unknown> };
}

/** Sessions spread over the nodes: each opened (and so owned) by node i % n. */
async function openSessions(nodes: readonly Endpoint[], adminToken: string): Promise<Session[]> {
  return Promise.all(
    Array.from({ length: SESSIONS }, async (_, i) => {
      const via = nodes[i % nodes.length]!.url;
      const { json: session } = await call(`${via}/v1/sessions`, adminToken);
      const { json: loop } = await call(`${via}/v1/sessions/${String(session.session_id)}/loops`, String(session.token), 'POST', {});
      return { sessionId: String(session.session_id), token: String(session.token), loopId: String(loop.loop_id) };
    }),
  );
}

/** Notifications for random sessions, `connections` split over the nodes (a load balancer without affinity). */
async function load(
  nodes: readonly Endpoint[],
  sessions: readonly Session[],
  connections: number,
  seconds: number,
  warmup: number,
): Promise<HttpResult> {
  const options = (node: Endpoint, share: number): autocannon.Options => ({
    url: node.url,
    connections: share,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const session = sessions[Math.floor(Math.random() * sessions.length)]!;
          return {
            ...request,
            path: `/v1/sessions/${session.sessionId}/process-completions`,
            headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
            body: JSON.stringify(benchNotification(session.sessionId, session.loopId, 1)),
          };
        },
      },
    ],
  });
  const shares = nodes.map((_, i) => Math.floor(connections / nodes.length) + (i < connections % nodes.length ? 1 : 0));
  await Promise.all(nodes.map((node, i) => autocannon({ ...options(node, shares[i]!), amount: Math.ceil(warmup / nodes.length) })));
  const results = await Promise.all(nodes.map((node, i) => autocannon({ ...options(node, shares[i]!), duration: seconds })));
  const statusCounts: Record<string, number> = {};
  for (const result of results) {
    for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {}))
      statusCounts[status] = (statusCounts[status] ?? 0) + (count ?? 0);
  }
  const requests = Object.values(statusCounts).reduce((sum, count) => sum + count, 0);
  const errors = results.reduce((sum, result) => sum + result.errors + result.timeouts, 0);
  if (requests === 0 || errors > 0 || statusCounts['202'] !== requests) {
    throw new Error(`expected only 202, got ${JSON.stringify(statusCounts)} and ${errors} connection errors`);
  }
  return {
    requests,
    seconds: Math.max(...results.map((result) => result.duration)),
    // Latencies of several load generators cannot be merged exactly: the mean of the medians and the worst p99.
    p50Ms: results.reduce((sum, result) => sum + result.latency.p50, 0) / results.length,
    p99Ms: Math.max(...results.map((result) => result.latency.p99)),
    statusCounts,
    non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
    errors,
  };
}

/** Milliseconds from SIGKILL of the node owning the first session until another node answers it. */
async function takeoverMs(nodes: readonly Node[], sessions: readonly Session[]): Promise<number> {
  const [victim, survivor] = nodes as [Node, Node];
  // Session 0 was opened on node 0, so node 0 owns it.
  const session = sessions[0]!;
  const path = `${survivor.url}/v1/sessions/${session.sessionId}/loops/${session.loopId}`;
  victim.child.kill('SIGKILL');
  const killed = performance.now();
  await new Promise((resolve) => victim.child.once('exit', resolve));
  for (;;) {
    if ((await call(path, session.token, 'GET')).status === 200) return performance.now() - killed;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Several nodes on one PostgreSQL database (real server processes from `dist/`): notify
 * throughput of one node, and of three behind a load balancer without affinity (two requests
 * in three are forwarded to their session's owner), on the same number of connections; and how
 * long after a SIGKILL another node answers the dead node's sessions (the default TTL, 10 s).
 */
export function clusterRows({
  connections,
  seconds,
  warmupRequests,
}: {
  connections: number;
  seconds: number;
  warmupRequests: number;
}): HttpRow[] {
  const row = (count: number): HttpRow & { takeoverMs?: number } => {
    const self: HttpRow & { takeoverMs?: number } = {
      id: `cluster/notify/${count}-node${count > 1 ? 's' : ''}`,
      label: `POST .../process-completions, ${count} node${count > 1 ? 's' : ''}, ${SESSIONS} sessions`,
      database: 'postgres',
      connections,
      ceiling: count > 1 ? 'cluster/notify/1-node' : undefined,
      floor: 'cluster/floor/1-node',
      async run() {
        const admin = await new DataSource({ type: 'postgres', url: POSTGRES_URL, poolSize: 1 }).initialize();
        const schema = `pn_bench_${randomBytes(6).toString('hex')}`;
        await admin.query(`CREATE SCHEMA "${schema}"`);
        const databaseUrl = `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
        const adminToken = randomBytes(32).toString('base64url');
        const nodes: Node[] = [];
        try {
          nodes.push(await startNode(databaseUrl, adminToken));
          for (let i = 1; i < count; i++) nodes.push(await startNode(databaseUrl, adminToken));
          const sessions = await openSessions(nodes, adminToken);
          const result = await load(nodes, sessions, connections, seconds, warmupRequests);
          if (count > 1) self.takeoverMs = await takeoverMs(nodes, sessions);
          return result;
        } finally {
          for (const node of nodes) node.child.kill('SIGKILL');
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await admin.destroy();
        }
      },
    };
    return self;
  };
  // The framework-free floor beside them (pg-floor-http-server.worker.ts): plain `pg`, one
  // transaction per request, same sessions and load as the one-node row.
  const floor: HttpRow = {
    id: 'cluster/floor/1-node',
    label: `floor: node:http + pg, notify, 1 txn/request, ${SESSIONS} sessions`,
    database: 'postgres',
    connections,
    async run() {
      const admin = await new DataSource({ type: 'postgres', url: POSTGRES_URL, poolSize: 1 }).initialize();
      const schema = `pn_bench_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE SCHEMA "${schema}"`);
      const adminToken = randomBytes(32).toString('base64url');
      let server: ServerWorker | undefined;
      try {
        const config: PgFloorConfig = { adminToken, capacity: 1_000_000, postgresUrl: POSTGRES_URL, schema, poolSize: 10 };
        server = await startServerWorker(new URL('./pg-floor-http-server.worker.js', import.meta.url), config);
        const endpoint = { url: `http://127.0.0.1:${server.port}` };
        const sessions = await openSessions([endpoint], adminToken);
        return await load([endpoint], sessions, connections, seconds, warmupRequests);
      } finally {
        await server?.close();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.destroy();
      }
    },
  };
  return [floor, row(1), row(3)];
}
