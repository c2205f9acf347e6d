import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { serverConfigFromEnv, type ServerConfig } from '../../src/config/server-config.js';
import type { HttpResult, HttpRow } from './http-row.interface.js';
import { benchNotification } from '../../test/support/notification-fixture.js';
import type { SqliteFloorConfig } from './floor-http-server.worker.js';
import { startServerWorker, type ServerWorker } from './server-worker.js';
import { tempDatabase } from './temp-database.js';

/** Load of each HTTP row: connections, timed seconds, and requests sent first to warm up. */
export interface HttpOptions {
  readonly connections: number;
  readonly seconds: number;
  readonly warmupRequests: number;
}

interface Target {
  readonly label: string;
  readonly expectedStatus: number;
  request(base: string, session: { sessionId: string; loopId: string; token: string }): autocannon.Options;
}

async function post(url: string, token: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

const TARGETS: Record<'notify' | 'session' | 'healthz', Target> = {
  // The supervisor's call, with its session token and a fresh command_id per request.
  notify: {
    label: 'POST /v1/sessions/:sid/process-completions',
    expectedStatus: 202,
    request: (base, { sessionId, loopId, token }) => ({
      url: base,
      requests: [
        {
          method: 'POST',
          path: `/v1/sessions/${sessionId}/process-completions`,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify(benchNotification(sessionId, loopId, 1)),
          }),
        },
      ],
    }),
  },
  // The cheapest authenticated route: bearer guard, UUID pipe, an in-memory lookup, no database.
  session: {
    label: 'GET /v1/sessions/:sid (ceiling)',
    expectedStatus: 200,
    request: (base, { sessionId, token }) => ({
      url: `${base}/v1/sessions/${sessionId}`,
      headers: { authorization: `Bearer ${token}` },
    }),
  },
  // Public, but shares a probe transaction in the journal writer's queue (journal-health-probe.ts).
  healthz: {
    label: 'GET /healthz (shared probe transaction)',
    expectedStatus: 200,
    request: (base) => ({ url: `${base}/healthz` }),
  },
};

function summarize(result: autocannon.Result, expectedStatus: number): HttpResult {
  const statusCounts: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCounts[status] = count ?? 0;
  // Every answered request, counted by status.
  const requests = Object.values(statusCounts).reduce((sum, count) => sum + count, 0);
  const summary: HttpResult = {
    requests,
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    statusCounts,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  // A benchmark of errors means nothing.
  if (requests === 0 || summary.errors > 0 || statusCounts[expectedStatus] !== requests) {
    throw new Error(`expected only ${expectedStatus}, got ${JSON.stringify(statusCounts)} and ${summary.errors} connection errors`);
  }
  return summary;
}

/**
 * The real server app (`createServerApp`, started in a worker thread on 127.0.0.1 and an
 * ephemeral port, fresh database per row) under autocannon load: the notify route, and two
 * routes of the same app as the framework's ceiling; then a bare Nest + Fastify app (the ceiling
 * of /healthz: what the framework costs without this project) and a bare node:http server for
 * what the machine does without any framework. Each app row creates its session and native loop over
 * HTTP and fails unless every response had the route's success status.
 */
export function httpRows({ connections, seconds, warmupRequests }: HttpOptions): HttpRow[] {
  const load = async (server: ServerWorker, options: autocannon.Options, expectedStatus: number): Promise<HttpResult> => {
    summarize(await autocannon({ ...options, connections, amount: warmupRequests }), expectedStatus);
    const busyMs = server.busyMs();
    const result = summarize(await autocannon({ ...options, connections, duration: seconds }), expectedStatus);
    return { ...result, serverUs: ((server.busyMs() - busyMs) * 1000) / result.requests };
  };
  const row = (target: keyof typeof TARGETS, database: 'memory' | 'file', ceiling?: string): HttpRow => ({
    id: `http/${target}/${database}`,
    label: TARGETS[target].label,
    database,
    connections,
    ceiling,
    // Every row is compared to the notify route's floor on its database: for notify the same
    // work without the framework, for the others how far below that work they stay.
    floor: `http/floor/${database}`,
    async run() {
      const file = database === 'file' ? tempDatabase('http.db') : undefined;
      const adminToken = randomBytes(32).toString('base64url');
      const config: ServerConfig = {
        ...serverConfigFromEnv({}),
        port: 0,
        databaseUrl: file ? `sqlite:${file.path}` : 'sqlite::memory:',
        adminToken,
        adminTokenGenerated: false,
        // Every accepted notification stays pending for the whole run.
        loopCapacity: 1_000_000,
        // One JSON line per request would flood the bench's output.
        logLevel: 'warn',
      };
      const server = await startServerWorker(new URL('./http-server.worker.js', import.meta.url), config);
      try {
        const base = `http://127.0.0.1:${server.port}`;
        const { session_id: sessionId, token } = (await post(`${base}/v1/sessions`, adminToken)) as { session_id: string; token: string };
        const { loop_id: loopId } = (await post(`${base}/v1/sessions/${sessionId}/loops`, token, { engine: 'native' })) as {
          loop_id: string;
        };
        const { expectedStatus, request } = TARGETS[target];
        return await load(server, request(base, { sessionId, loopId, token }), expectedStatus);
      } finally {
        await server.close();
        file?.remove();
      }
    },
  });
  const bareNodeHttp: HttpRow = {
    id: 'http/node-http',
    label: 'bare node:http, constant JSON (not the app)',
    database: 'none',
    connections,
    async run() {
      const server = await startServerWorker(new URL('./node-http-server.worker.js', import.meta.url));
      try {
        return await load(server, { url: `http://127.0.0.1:${server.port}/` }, 200);
      } finally {
        await server.close();
      }
    },
  };
  // The framework's own cost: Nest on Fastify with one constant GET and nothing of this project,
  // the ceiling of this server's /healthz.
  const bareNest: HttpRow = {
    id: 'http/bare-nest',
    label: 'bare Nest + Fastify, constant GET /healthz (not the app)',
    database: 'none',
    connections,
    async run() {
      const server = await startServerWorker(new URL('./bare-nest-server.worker.js', import.meta.url));
      try {
        return await load(server, { url: `http://127.0.0.1:${server.port}/healthz` }, 200);
      } finally {
        await server.close();
      }
    },
  };
  // The framework-free floor of the notify route (floor-http-server.worker.ts): same checks, same
  // table, one transaction per request, same load as the app's notify row.
  const floorRow = (database: 'memory' | 'file'): HttpRow => ({
    id: `http/floor/${database}`,
    label: 'floor: node:http + better-sqlite3, notify, 1 txn/request',
    database,
    connections,
    async run() {
      const file = database === 'file' ? tempDatabase('floor-http.db') : undefined;
      const adminToken = randomBytes(32).toString('base64url');
      const config: SqliteFloorConfig = { adminToken, capacity: 1_000_000, database: file?.path ?? ':memory:' };
      const server = await startServerWorker(new URL('./floor-http-server.worker.js', import.meta.url), config);
      try {
        const base = `http://127.0.0.1:${server.port}`;
        const { session_id: sessionId, token } = (await post(`${base}/v1/sessions`, adminToken)) as { session_id: string; token: string };
        const { loop_id: loopId } = (await post(`${base}/v1/sessions/${sessionId}/loops`, token, { engine: 'native' })) as {
          loop_id: string;
        };
        return await load(server, TARGETS.notify.request(base, { sessionId, loopId, token }), TARGETS.notify.expectedStatus);
      } finally {
        await server.close();
        file?.remove();
      }
    },
  });
  return [
    floorRow('memory'),
    floorRow('file'),
    row('notify', 'memory', 'http/session/memory'),
    row('notify', 'file', 'http/session/file'),
    row('session', 'memory'),
    row('session', 'file'),
    row('healthz', 'memory', 'http/bare-nest'),
    row('healthz', 'file', 'http/bare-nest'),
    bareNest,
    bareNodeHttp,
  ];
}
