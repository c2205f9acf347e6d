import { createServer } from 'node:net';
import type { DataSource } from 'typeorm';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { notification } from '../support/test-app.js';
import { Cluster, connectSchema, type ClusterSession, type Delivery } from './support/cluster.js';
import { SERVER_ADMIN_TOKEN } from '../support/server-process.js';
import { openSse } from '../e2e/support/sse-client.js';

// Spec section 9 on real server processes: three nodes on one fresh PostgreSQL schema with a
// short lease TTL, and clients that send to random nodes and retry with the same body on 503
// or a broken connection.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

const TTL_MS = 2_000;
const SUCCESS = new Set([200, 202]);

/** A TCP port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits (one event-loop turn at a time) until `condition` holds. */
async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describeOnPostgres('several nodes on one PostgreSQL database (real processes)', () => {
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

  /** The command ids of the session's notifications in the journal, in sequence order. */
  const journaled = async (sessionId: string): Promise<string[]> =>
    (
      (await db!.query(`SELECT idempotency_id FROM pn_journal WHERE session_id = $1 AND kind = 'process_notification' ORDER BY sequence`, [
        sessionId,
      ])) as Array<{ idempotency_id: string }>
    ).map((row) => row.idempotency_id);

  const pendingIds = async (session: ClusterSession): Promise<string[]> => {
    const answer = await cluster!.retrying(() =>
      cluster!.call(
        cluster!.any(),
        'GET',
        `/v1/sessions/${session.sessionId}/loops/${session.loopId}/process-notifications`,
        session.token,
      ),
    );
    expect(answer.status).toBe(200);
    return (answer.body as { notifications: Array<{ command_id: string }> }).notifications.map((n) => n.command_id);
  };

  /**
   * What every user depends on, whatever happened to the nodes: each notification answered
   * 2xx or delivery_stopped is in the journal exactly once and pending in its loop, and the
   * journal holds nothing no client sent.
   */
  const expectNothingLostOrDoubled = async (sessions: ClusterSession[], deliveries: Delivery[], sent: Set<string>): Promise<void> => {
    const answered = deliveries.filter(
      ({ answer }) => SUCCESS.has(answer.status!) || (answer.body as { code?: string } | undefined)?.code === 'delivery_stopped',
    );
    expect(answered.length).toBe(deliveries.length);
    for (const session of sessions) {
      const inJournal = await journaled(session.sessionId);
      expect(new Set(inJournal).size).toBe(inJournal.length);
      expect(inJournal.filter((id) => !sent.has(id))).toEqual([]);
      const mine = answered.filter((d) => d.sessionId === session.sessionId).map((d) => d.commandId);
      expect(mine.filter((id) => !inJournal.includes(id))).toEqual([]);
      // Nothing is consumed here: the pending set is exactly what was journaled, in order.
      expect(await pendingIds(session)).toEqual(inJournal);
    }
  };

  it('SIGKILL of the busiest owner under load: its sessions answer elsewhere within TTL + 2 s, nothing lost or doubled', async () => {
    cluster = await Cluster.start(3, schema.databaseUrl, { PN_LEASE_TTL_MS: String(TTL_MS) });
    db = await connectSchema(schema.databaseUrl);
    const sessions = await Promise.all(Array.from({ length: 24 }, (_, i) => cluster!.openSession(cluster!.nodes[i % 3])));
    const deliveries: Delivery[] = [];
    const sent = new Set<string>();
    let stopped = false;
    const failures: unknown[] = [];
    const worker = async (): Promise<void> => {
      // A failure ends the worker and is checked below, so none outlives its test.
      while (!stopped) {
        const delivery = await cluster!.deliver(sessions[Math.floor(Math.random() * sessions.length)]!).catch((error: unknown) => {
          failures.push(error);
          stopped = true;
        });
        if (!delivery) return;
        sent.add(delivery.commandId);
        deliveries.push(delivery);
      }
    };
    const workers = Array.from({ length: 12 }, worker);
    await until(() => deliveries.length >= 150, '150 deliveries before the kill');

    const owners = (await db.query(
      'SELECT n.url, count(*)::int AS sessions FROM pn_session_leases l JOIN pn_nodes n ON n.node_id = l.owner_node GROUP BY n.url ORDER BY 2 DESC',
    )) as Array<{ url: string; sessions: number }>;
    const victim = cluster.nodes.find((node) => node.url === owners[0]!.url)!;
    const orphaned: ClusterSession[] = [];
    for (const session of sessions) if ((await cluster.ownerOf(db, session.sessionId)) === victim) orphaned.push(session);
    expect(orphaned.length).toBeGreaterThan(0);

    victim.signal('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    // Each orphaned session, asked on the survivors until it answers.
    const survivors = cluster.nodes.filter((node) => node !== victim);
    const takeover = await Promise.all(
      orphaned.map(async (session) => {
        await until(async () => {
          const node = survivors[Math.floor(Math.random() * survivors.length)]!;
          const answer = await cluster!.call(node, 'GET', `/v1/sessions/${session.sessionId}/loops/${session.loopId}`, session.token);
          return answer.status === 200;
        }, `session ${session.sessionId} to answer after the kill`);
        return Date.now() - killedAt;
      }),
    );
    expect(Math.max(...takeover)).toBeLessThanOrEqual(TTL_MS + 2_000);

    const afterKill = deliveries.length;
    await until(() => deliveries.length >= afterKill + 150 || failures.length > 0, '150 more deliveries after the kill');
    stopped = true;
    await Promise.all(workers);
    expect(failures).toEqual([]);
    await expectNothingLostOrDoubled(sessions, deliveries, sent);
  }, 90_000);

  it('SIGSTOP of an owner past its TTL, then SIGCONT: another node took over, the frozen one writes nothing stale', async () => {
    cluster = await Cluster.start(3, schema.databaseUrl, { PN_LEASE_TTL_MS: String(TTL_MS) });
    db = await connectSchema(schema.databaseUrl);
    const [frozen] = cluster.nodes as [ReturnType<Cluster['any']>];
    // The frozen node opened the loop, so it owns the session.
    const session = await cluster.openSession(frozen, frozen);
    expect(await cluster.ownerOf(db, session.sessionId)).toBe(frozen);
    const deliveries: Delivery[] = [];
    const sent = new Set<string>();
    let stopped = false;
    const failures: unknown[] = [];
    // Some clients keep sending to the frozen node itself: their requests wait in its socket.
    const worker = async (via?: () => ReturnType<Cluster['any']>): Promise<void> => {
      // A failure ends the worker and is checked below, so none outlives its test.
      while (!stopped) {
        const delivery = await cluster!.deliver(session, via).catch((error: unknown) => {
          failures.push(error);
          stopped = true;
        });
        if (!delivery) return;
        sent.add(delivery.commandId);
        deliveries.push(delivery);
      }
    };
    const workers = [...Array.from({ length: 6 }, () => worker()), worker(() => frozen), worker(() => frozen)];
    await until(() => deliveries.length >= 50, '50 deliveries before the freeze');

    frozen.signal('SIGSTOP');
    await until(async () => {
      const owner = await cluster!.ownerOf(db!, session.sessionId);
      return owner !== undefined && owner !== frozen;
    }, 'another node to take the session over');
    const [{ epoch }] = (await db.query('SELECT epoch FROM pn_session_leases WHERE session_id = $1', [session.sessionId])) as [
      { epoch: string },
    ];
    expect(Number(epoch)).toBeGreaterThan(1);
    const atTakeover = deliveries.length;
    await until(() => deliveries.length >= atTakeover + 30 || failures.length > 0, '30 deliveries while the owner is frozen', 60_000);

    frozen.signal('SIGCONT');
    const atResume = deliveries.length;
    await until(() => deliveries.length >= atResume + 30 || failures.length > 0, '30 deliveries after the owner resumed', 60_000);
    stopped = true;
    await Promise.all(workers);
    expect(failures).toEqual([]);
    await expectNothingLostOrDoubled([session], deliveries, sent);
    // The resumed node did not take the session back: it forwards to the new owner.
    expect(await cluster.ownerOf(db, session.sessionId)).not.toBe(frozen);
  }, 150_000);

  it('an event stream on a non-owner node gets every record of its session in order, without gaps, across a handover', async () => {
    cluster = await Cluster.start(3, schema.databaseUrl, { PN_LEASE_TTL_MS: String(TTL_MS) });
    db = await connectSchema(schema.databaseUrl);
    const [owner, reader] = cluster.nodes as [ReturnType<Cluster['any']>, ReturnType<Cluster['any']>];
    const session = await cluster.openSession(owner, owner);
    const stream = await openSse(`${reader.url}/v1/sessions/${session.sessionId}/events`, { Authorization: `Bearer ${session.token}` });
    expect(stream.status).toBe(200);

    for (let i = 0; i < 20; i++) await cluster.deliver(session, () => owner);
    owner.signal('SIGKILL');
    await owner.exited;
    const survivors = cluster.nodes.filter((node) => node !== owner);
    for (let i = 0; i < 20; i++) await cluster.deliver(session, () => survivors[i % 2]!);

    const sequences = async (): Promise<number[]> =>
      (
        (await db!.query('SELECT sequence FROM pn_journal WHERE session_id = $1 ORDER BY sequence', [session.sessionId])) as Array<{
          sequence: string;
        }>
      ).map((row) => Number(row.sequence));
    const expected = await sequences();
    expect((await journaled(session.sessionId)).length).toBe(40);
    const events = await stream.next(expected.length);
    stream.close();
    expect(events.map((event) => Number(event.id))).toEqual(expected);
  }, 60_000);

  it('SIGTERM: the node releases its sessions, and another node answers them at once, without waiting for the TTL', async () => {
    // A TTL far longer than the test: only the release can make the handover this quick.
    cluster = await Cluster.start(2, schema.databaseUrl, { PN_LEASE_TTL_MS: '60000' });
    db = await connectSchema(schema.databaseUrl);
    const [leaving, staying] = cluster.nodes as [ReturnType<Cluster['any']>, ReturnType<Cluster['any']>];
    const session = await cluster.openSession(leaving, leaving);
    const before = await cluster.deliver(session, () => leaving);
    expect(before.answer.status).toBe(202);

    expect(await leaving.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const n = notification(session.sessionId, session.loopId);
    const path = `/v1/sessions/${session.sessionId}/process-completions`;
    const first = await cluster.call(staying, 'POST', path, session.token, n);
    expect(first.status).toBe(202);
    expect(await pendingIds(session)).toEqual([before.commandId, n.command_id]);
  }, 60_000);

  it('a batch delivery sent to a node that does not own the session is answered by the owner, as its single deliveries are', async () => {
    cluster = await Cluster.start(2, schema.databaseUrl);
    db = await connectSchema(schema.databaseUrl);
    const [owner, other] = cluster.nodes as [ReturnType<Cluster['any']>, ReturnType<Cluster['any']>];
    const session = await cluster.openSession(owner, owner);
    const sent = [notification(session.sessionId, session.loopId), notification(session.sessionId, session.loopId)];
    const path = `/v1/sessions/${session.sessionId}/process-completions/batch`;
    const answer = await cluster.call(other, 'POST', path, session.token, { notifications: [...sent, sent[0]] });
    expect(answer.status).toBe(200);
    const results = (answer.body as { results: Array<{ status: number }> }).results;
    expect(results.map((result) => result.status).sort()).toEqual([200, 202, 202]);
    expect((await pendingIds(session)).sort()).toEqual(sent.map((n) => n.command_id).sort());
  }, 60_000);

  it('an owner that died with its lease still running: 503 owner_unavailable, Retry-After until the lease ends, nothing written', async () => {
    cluster = await Cluster.start(2, schema.databaseUrl, { PN_LEASE_TTL_MS: '60000' });
    db = await connectSchema(schema.databaseUrl);
    const [dead, alive] = cluster.nodes as [ReturnType<Cluster['any']>, ReturnType<Cluster['any']>];
    const session = await cluster.openSession(dead, dead);
    dead.signal('SIGKILL');
    await dead.exited;
    const n = notification(session.sessionId, session.loopId);
    const answer = await cluster.call(alive, 'POST', `/v1/sessions/${session.sessionId}/process-completions`, session.token, n);
    expect(answer).toMatchObject({ status: 503, body: { code: 'owner_unavailable', status: 503 } });
    expect(answer.headers?.['content-type']).toMatch(/^application\/problem\+json/);
    const retryAfter = Number(answer.headers?.['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(await journaled(session.sessionId)).toEqual([]);
    // Reads of the journal need no owner: any node serves them.
    const page = await cluster.call(alive, 'GET', `/v1/sessions/${session.sessionId}/journal`, session.token);
    expect(page).toMatchObject({ status: 200, body: { records: [], next_after: 0 } });
  }, 60_000);

  it('a node restarted in place (same URL) takes its sessions back at once, without waiting for the TTL', async () => {
    const port = await freePort();
    cluster = await Cluster.start(1, schema.databaseUrl, { PN_LEASE_TTL_MS: '60000', PORT: String(port) });
    db = await connectSchema(schema.databaseUrl);
    const [crashed] = cluster.nodes as [ReturnType<Cluster['any']>];
    const session = await cluster.openSession(crashed, crashed);
    const before = await cluster.deliver(session, () => crashed);
    crashed.signal('SIGKILL');
    await crashed.exited;
    cluster.nodes.splice(0, 1);

    const restarted = await cluster.addNode();
    expect(restarted.url).toBe(crashed.url);
    const n = notification(session.sessionId, session.loopId);
    const first = await cluster.call(restarted, 'POST', `/v1/sessions/${session.sessionId}/process-completions`, session.token, n);
    expect(first.status).toBe(202);
    expect(await pendingIds(session)).toEqual([before.commandId, n.command_id]);
  }, 60_000);

  it('every node answers the admin routes alike, from the database; a forwarded refusal is listed once, the same by every node', async () => {
    cluster = await Cluster.start(3, schema.databaseUrl, { PN_LEASE_TTL_MS: '60000' });
    const nodes = cluster.nodes;
    const sessions = [
      await cluster.openSession(nodes[0], nodes[0]),
      await cluster.openSession(nodes[1], nodes[1]),
      await cluster.openSession(nodes[2], nodes[2]),
    ];
    const deliveries: Delivery[] = [];
    for (const session of sessions) for (let i = 0; i < 3; i++) deliveries.push(await cluster.deliver(session));
    const [first] = deliveries;
    const consumed = await cluster.call(
      nodes[2]!,
      'POST',
      `/v1/sessions/${first!.sessionId}/loops/${sessions[0]!.loopId}/process-notifications/${first!.commandId}/consume`,
      SERVER_ADMIN_TOKEN,
    );
    expect(consumed.status).toBe(200);
    expect(
      (
        await cluster.call(
          nodes[0]!,
          'POST',
          `/v1/sessions/${sessions[1]!.sessionId}/loops/${sessions[1]!.loopId}/stop`,
          SERVER_ADMIN_TOKEN,
        )
      ).status,
    ).toBe(200);
    // A collision sent to a node that does not own the session: forwarded to its owner (node 1).
    const reused = deliveries[3]!;
    const collision = { ...notification(reused.sessionId, sessions[1]!.loopId), command_id: reused.commandId, process_handle: 'other' };
    const refused = await cluster.call(
      nodes[2]!,
      'POST',
      `/v1/sessions/${reused.sessionId}/process-completions`,
      sessions[1]!.token,
      collision,
    );
    expect(refused).toMatchObject({ status: 422, body: { code: 'idempotency_collision' } });
    // Stored by the owner off the answer's path: every node lists it once it is in the database.
    const listsCollision = async (node: (typeof nodes)[number]): Promise<boolean> =>
      (
        (await cluster!.call(node, 'GET', '/v1/admin/refusals', SERVER_ADMIN_TOKEN)).body as { refusals: Array<{ command_id: string }> }
      ).refusals.some((r) => r.command_id === reused.commandId);
    for (const node of nodes) await until(() => listsCollision(node), 'the collision listed by every node');

    const routes = [
      '/v1/admin/sessions',
      '/v1/admin/sessions?limit=2',
      '/v1/admin/loops',
      '/v1/admin/loops?filter=unconsumed',
      '/v1/admin/loops?filter=full',
      '/v1/admin/loops?filter=stopped',
      '/v1/admin/loops?filter=stale',
      `/v1/admin/loops?session_id=${sessions[2]!.sessionId}`,
      `/v1/admin/notifications/${first!.commandId}`,
      `/v1/admin/notifications/${reused.commandId}`,
    ];
    for (const route of routes) {
      const answers = await Promise.all(nodes.map((node) => cluster!.call(node, 'GET', route, SERVER_ADMIN_TOKEN)));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect({ route, bodies: answers.map((answer) => answer.body) }).toEqual({ route, bodies: Array(3).fill(answers[0]!.body) });
    }
    const loops = (await cluster.call(nodes[0]!, 'GET', '/v1/admin/loops?filter=unconsumed', SERVER_ADMIN_TOKEN)).body as {
      loops: Array<{ session_id: string; state: string; unconsumed: number }>;
    };
    expect(loops.loops.map((loop) => [loop.session_id, loop.state, loop.unconsumed])).toEqual([
      [sessions[2]!.sessionId, 'running', 3],
      [sessions[1]!.sessionId, 'stopped', 3],
      [sessions[0]!.sessionId, 'running', 2],
    ]);
    const found = (await cluster.call(nodes[1]!, 'GET', `/v1/admin/notifications/${first!.commandId}`, SERVER_ADMIN_TOKEN)).body as {
      notifications: Array<{ consumed_sequence: number | null }>;
    };
    expect(found.notifications).toEqual([
      expect.objectContaining({
        session_id: first!.sessionId,
        consumed_sequence: consumed.body && (consumed.body as { sequence: number }).sequence,
      }),
    ]);

    // Nodes: the same list from every node (heartbeat times move on between two reads).
    const nodeLists = await Promise.all(nodes.map((node) => cluster!.call(node, 'GET', '/v1/admin/nodes', SERVER_ADMIN_TOKEN)));
    const withoutHeartbeat = (answer: { body?: unknown }) =>
      (answer.body as { nodes: Array<Record<string, unknown>> }).nodes
        .map(({ last_heartbeat_at: _at, node_id: _id, ...node }) => node)
        .sort((a, b) => String(a.node_url).localeCompare(String(b.node_url)));
    expect(nodeLists.map(withoutHeartbeat)).toEqual(Array(3).fill(withoutHeartbeat(nodeLists[0]!)));
    expect(withoutHeartbeat(nodeLists[0]!)).toEqual(
      nodes.map((node) => ({ node_url: node.url, live: true, sessions: 1 })).sort((a, b) => a.node_url.localeCompare(b.node_url)),
    );

    // The refusal is the owner's answer, relayed by node 2: listed once, as every node sees it.
    const refusals = await Promise.all(nodes.map((node) => cluster!.call(node, 'GET', '/v1/admin/refusals', SERVER_ADMIN_TOKEN)));
    const collisions = refusals.map(
      (answer) =>
        (answer.body as { refusals: Array<{ code: string; command_id: string }> }).refusals.filter((r) => r.command_id === reused.commandId)
          .length,
    );
    expect(collisions).toEqual([1, 1, 1]);
  }, 120_000);

  it('identical retries on different nodes de-duplicate; one id sent to every node at once is journaled once', async () => {
    cluster = await Cluster.start(3, schema.databaseUrl, { PN_LEASE_TTL_MS: String(TTL_MS) });
    db = await connectSchema(schema.databaseUrl);
    const session = await cluster.openSession();
    const path = `/v1/sessions/${session.sessionId}/process-completions`;

    // The same first delivery to all three nodes at once, each retried until final.
    const n = notification(session.sessionId, session.loopId);
    const answers = await Promise.all(
      cluster.nodes.map((node) => cluster!.retrying(() => cluster!.call(node, 'POST', path, session.token, n))),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 202]);
    expect(answers.filter((a) => a.headers?.['idempotent-replayed'] === 'true')).toHaveLength(2);
    const sequences = new Set(answers.map((a) => (a.body as { sequence: number }).sequence));
    expect(sequences.size).toBe(1);

    // Identical retries, one per node: each answered duplicate, forwarded or not, same sequence.
    for (const node of cluster.nodes) {
      const retry = await cluster.retrying(() => cluster!.call(node, 'POST', path, session.token, n));
      expect(retry).toMatchObject({ status: 200, headers: { 'idempotent-replayed': 'true' } });
      expect(retry.body).toMatchObject({ disposition: 'duplicate', appended: false, sequence: [...sequences][0] });
    }
    // A different body under the same id is a collision on every node.
    for (const node of cluster.nodes) {
      const collision = await cluster.retrying(() => cluster!.call(node, 'POST', path, session.token, { ...n, process_handle: 'other' }));
      expect(collision).toMatchObject({ status: 422, body: { code: 'idempotency_collision' } });
    }
    expect(await journaled(session.sessionId)).toEqual([n.command_id]);
  }, 60_000);
});
