import type { DataSource } from 'typeorm';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { notification } from '../support/test-app.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { Cluster, connectSchema } from './support/cluster.js';

// Refusals (spec section 12.1) on real server processes: two nodes on one fresh PostgreSQL
// schema. A refusal answered by one node is listed by the other, and still after both restart;
// the nodes list shows each node's id, and a node restarted at its address replaces its old row.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

interface RefusalBody {
  readonly code: string;
  readonly command_id: string | null;
  readonly original_sequence: number | null;
  readonly differing_fields: string[] | null;
  readonly node_id: string;
}

/** Waits (one event-loop turn at a time) until `condition` holds. */
async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describeOnPostgres('refusals across nodes and restarts (real processes on PostgreSQL)', () => {
  let schema: { name: string; databaseUrl: string };
  let cluster: Cluster | undefined;
  let db: DataSource | undefined;

  beforeEach(async () => {
    schema = freshSchema();
    await admin!.query(`CREATE SCHEMA "${schema.name}"`);
  });

  afterEach(async () => {
    await cluster?.stop();
    await db?.destroy();
    cluster = undefined;
    db = undefined;
    await admin!.query(`DROP SCHEMA IF EXISTS "${schema.name}" CASCADE`);
  });

  afterAll(async () => {
    await admin!.destroy();
  });

  it('a collision refused by one node is listed by the other, with its original and differing fields, and survives a restart of both', async () => {
    cluster = await Cluster.start(2, schema.databaseUrl, { PN_LEASE_TTL_MS: '60000' });
    const [a, b] = cluster.nodes as [ServerProcess, ServerProcess];
    const session = await cluster.openSession(a, a);
    const path = `/v1/sessions/${session.sessionId}/process-completions`;
    const sent = notification(session.sessionId, session.loopId);
    const original = await cluster.call(a, 'POST', path, session.token, sent);
    expect(original.status).toBe(202);
    const secret = 'a-value-that-must-not-be-listed';
    const refused = await cluster.call(a, 'POST', path, session.token, {
      ...sent,
      process_handle: secret,
      state: 'failed',
      reason: 'failed',
    });
    expect(refused).toMatchObject({ status: 422, body: { code: 'idempotency_collision' } });

    const refusalsOf = async (node: ServerProcess): Promise<RefusalBody[]> =>
      ((await cluster!.call(node, 'GET', '/v1/admin/refusals', SERVER_ADMIN_TOKEN)).body as { refusals: RefusalBody[] }).refusals;
    await until(async () => (await refusalsOf(b)).length > 0, 'node B listing node A’s refusal');
    const listed = await refusalsOf(b);
    const nodes = (await cluster.call(b, 'GET', '/v1/admin/nodes', SERVER_ADMIN_TOKEN)).body as {
      nodes: Array<{ node_id: string; node_url: string }>;
    };
    const nodeA = nodes.nodes.find((node) => node.node_url === a.url)!;
    expect(listed).toEqual([
      expect.objectContaining({
        code: 'idempotency_collision',
        command_id: sent.command_id,
        original_sequence: (original.body as { sequence: number }).sequence,
        differing_fields: ['process_handle', 'reason', 'state'],
        node_id: nodeA.node_id,
      }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(await refusalsOf(a)).toEqual(listed);
    // The search for the id shows the refusal beside the original, from either node.
    const search = (await cluster.call(b, 'GET', `/v1/admin/notifications/${sent.command_id as string}`, SERVER_ADMIN_TOKEN)).body as {
      notifications: unknown[];
      refusals: RefusalBody[];
    };
    expect(search.notifications).toHaveLength(1);
    expect(search.refusals).toEqual(listed);

    // Both nodes restarted: the database still lists it.
    await cluster.stop();
    cluster = await Cluster.start(1, schema.databaseUrl, { PN_LEASE_TTL_MS: '60000' });
    expect(await refusalsOf(cluster.nodes[0]!)).toEqual(listed);
  }, 120_000);

  it('the nodes list shows node ids, and a node restarted at its address replaces its old row', async () => {
    cluster = await Cluster.start(1, schema.databaseUrl, { PN_LEASE_TTL_MS: '60000', PORT: '0' });
    db = await connectSchema(schema.databaseUrl);
    const first = cluster.nodes[0]!;
    const port = new URL(first.url).port;
    const nodesOf = async (node: ServerProcess) =>
      (
        (await cluster!.call(node, 'GET', '/v1/admin/nodes', SERVER_ADMIN_TOKEN)).body as {
          nodes: Array<{ node_id: string; node_url: string; live: boolean }>;
        }
      ).nodes;
    const [before] = await nodesOf(first);
    const [row] = (await db.query('SELECT node_id FROM pn_nodes')) as Array<{ node_id: string }>;
    expect(before).toMatchObject({ node_id: row!.node_id, node_url: first.url, live: true });

    first.signal('SIGKILL');
    await first.exited;
    cluster.nodes.splice(0, 1);
    const restarted = await cluster.addNode({ PORT: port });
    expect(restarted.url).toBe(first.url);
    const after = await nodesOf(restarted);
    // Two heartbeat rows at one address; the list shows the new one only.
    expect(((await db.query('SELECT node_id FROM pn_nodes')) as unknown[]).length).toBe(2);
    expect(after).toEqual([expect.objectContaining({ node_url: first.url, live: true })]);
    expect(after[0]!.node_id).not.toBe(before!.node_id);
  }, 120_000);
});
