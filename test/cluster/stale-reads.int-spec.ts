import { connectPostgresAdmin } from '../support/postgres.js';
import type { ServerProcess } from '../support/server-process.js';
import { clusterPerTest } from './support/cluster-per-test.js';
import { Cluster, connectSchema, type ClusterSession } from './support/cluster.js';

// Spec section 9 after a lapse: a node frozen past its lease TTL while another node took its
// session over and changed it must never answer that session from its own memory again.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

const TTL_MS = 2_000;
// Reads through the old owner after it resumes: longer than two TTLs, so that several of its
// heartbeats (each of which used to make it trust its memory again) fall inside.
const OBSERVE_MS = 5_000;

describeOnPostgres('no stale answers after a heal (real processes)', () => {
  const t = clusterPerTest(admin!);

  const pendingVia = (node: ServerProcess, session: ClusterSession) =>
    t.cluster!.call(node, 'GET', `/v1/sessions/${session.sessionId}/loops/${session.loopId}/process-notifications`, session.token);

  const idsOf = (answer: { body?: unknown }): string[] =>
    (answer.body as { notifications: Array<{ command_id: string }> }).notifications.map((n) => n.command_id);

  it('SIGSTOP of the owner past its TTL, takeover, consume one and accept one, SIGCONT: every read through the old owner shows the new state', async () => {
    const cluster = (t.cluster = await Cluster.start(3, t.databaseUrl, { PN_LEASE_TTL_MS: String(TTL_MS) }));
    const db = (t.db = await connectSchema(t.databaseUrl));
    const [old, other] = cluster.nodes as [ServerProcess, ServerProcess];
    const session = await cluster.openSession(old, old);
    const before: string[] = [];
    for (let i = 0; i < 5; i++) before.push((await cluster.deliver(session, () => old)).commandId);
    // The old owner has the five in memory, and has served them.
    expect(idsOf(await pendingVia(old, session))).toEqual(before);
    expect(await cluster.ownerOf(db, session.sessionId)).toBe(old);

    old.signal('SIGSTOP');
    try {
      // Another node takes over once the frozen node's lease expired, consumes #1, accepts #6.
      const consumed = await cluster.retrying(() =>
        cluster.call(
          other,
          'POST',
          `/v1/sessions/${session.sessionId}/loops/${session.loopId}/process-notifications/${before[0]}/consume`,
          session.token,
          {},
        ),
      );
      expect(consumed.status).toBe(200);
      const sixth = await cluster.deliver(session, () => other);
      expect(sixth.answer.status).toBe(202);
      expect(await cluster.ownerOf(db, session.sessionId)).toBe(other);
      const now = [...before.slice(1), sixth.commandId];
      expect(idsOf(await pendingVia(other, session))).toEqual(now);

      old.signal('SIGCONT');
      const reads: string[][] = [];
      const until = Date.now() + OBSERVE_MS;
      while (Date.now() < until) {
        const answer = await pendingVia(old, session);
        // A 503 (the node is re-checking) is no answer from memory; anything else must be 200.
        if (answer.status === 503 && (answer.body as { code?: string }).code === 'owner_unavailable') continue;
        expect(answer.status).toBe(200);
        reads.push(idsOf(answer));
      }
      expect(reads.length).toBeGreaterThan(20);
      expect(reads.filter((ids) => JSON.stringify(ids) !== JSON.stringify(now))).toEqual([]);
      expect(await cluster.ownerOf(db, session.sessionId)).toBe(other);
    } finally {
      old.signal('SIGCONT');
    }
  }, 90_000);

  it('re-reads every lease it held before trusting its memory again: frozen past its TTL, sent nothing, resumed, its heartbeats run, then every read shows the new state', async () => {
    // The test above reads through the old owner at once after SIGCONT, before its first late
    // heartbeat completes, so the lease check of each request keeps it fresh. Here nothing reaches
    // the old owner until its heartbeat has run: only its re-reading of the leases it held
    // (SessionLeases.revalidate) can tell it that it lost the session.
    const cluster = (t.cluster = await Cluster.start(2, t.databaseUrl, { PN_LEASE_TTL_MS: String(TTL_MS) }));
    const db = (t.db = await connectSchema(t.databaseUrl));
    const [old, other] = cluster.nodes as [ServerProcess, ServerProcess];
    const session = await cluster.openSession(old, old);
    const before: string[] = [];
    for (let i = 0; i < 3; i++) before.push((await cluster.deliver(session, () => old)).commandId);
    expect(idsOf(await pendingVia(old, session))).toEqual(before);
    expect(await cluster.ownerOf(db, session.sessionId)).toBe(old);
    const nodeRow = async (): Promise<{ expired: boolean; heartbeat: string }> => {
      const [row] = (await db.query(
        `SELECT expires_at < now() AS expired, to_char(heartbeat_at, 'YYYY-MM-DD HH24:MI:SS.US') AS heartbeat FROM pn_nodes WHERE url = $1`,
        [old.url],
      )) as Array<{ expired: boolean; heartbeat: string }>;
      return row!;
    };

    old.signal('SIGSTOP');
    try {
      // Nothing is sent to any node until the frozen node's lease has expired: no request can
      // reach it, not even one forwarded by another node.
      await until(async () => (await nodeRow()).expired, 'the frozen node’s lease to expire');
      const consumed = await cluster.retrying(() =>
        cluster.call(
          other,
          'POST',
          `/v1/sessions/${session.sessionId}/loops/${session.loopId}/process-notifications/${before[0]}/consume`,
          session.token,
          {},
        ),
      );
      expect(consumed.status).toBe(200);
      const accepted = await cluster.deliver(session, () => other);
      expect(accepted.answer.status).toBe(202);
      expect(await cluster.ownerOf(db, session.sessionId)).toBe(other);
      const now = [...before.slice(1), accepted.commandId];
      expect(idsOf(await pendingVia(other, session))).toEqual(now);

      // Resumed, and still sent nothing while three of its heartbeats land: the first is late and
      // re-reads the leases; by the third, that re-reading has finished.
      const frozenAt = (await nodeRow()).heartbeat;
      old.signal('SIGCONT');
      const beats = new Set<string>();
      await until(async () => {
        const { heartbeat } = await nodeRow();
        if (heartbeat !== frozenAt) beats.add(heartbeat);
        return beats.size >= 3;
      }, 'three heartbeats of the resumed node');

      for (let i = 0; i < 20; i++) {
        const answer = await pendingVia(old, session);
        expect(answer.status).toBe(200);
        expect(idsOf(answer)).toEqual(now);
      }
      expect(await cluster.ownerOf(db, session.sessionId)).toBe(other);
    } finally {
      old.signal('SIGCONT');
    }
  }, 90_000);
});

/** Waits until `condition` holds, checking again every 50 ms. */
async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
