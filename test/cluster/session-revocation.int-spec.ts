import { connectPostgresAdmin } from '../support/postgres.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { clusterPerTest } from './support/cluster-per-test.js';
import { Cluster, connectSchema } from './support/cluster.js';

// Rotation and closing with several nodes (real processes, one PostgreSQL schema): the owner
// commits them, and from that commit on no node takes the old token, not even one that checked
// it a moment before (a node that kept another node's tokens in a cache would still let it in).
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

describeOnPostgres('rotating and closing with two nodes on one PostgreSQL database', () => {
  const state = clusterPerTest(admin!);

  /** Two nodes; a session opened through `a`, which owns it (its loop was opened there). */
  async function twoNodes(): Promise<{ cluster: Cluster; a: ServerProcess; b: ServerProcess; sessionId: string; token: string }> {
    const cluster = (state.cluster = await Cluster.start(2, state.databaseUrl, { PN_LEASE_TTL_MS: '2000' }));
    state.db = await connectSchema(state.databaseUrl);
    const [a, b] = cluster.nodes as [ServerProcess, ServerProcess];
    const { sessionId, token } = await cluster.openSession(a, a);
    expect(await cluster.ownerOf(state.db, sessionId)).toBe(a);
    return { cluster, a, b, sessionId, token };
  }

  /** What `node` answers to `token` on a route it serves itself, one it forwards, and whoami. */
  async function answers(cluster: Cluster, node: ServerProcess, sessionId: string, token: string): Promise<(number | undefined)[]> {
    return [
      (await cluster.call(node, 'GET', `/v1/sessions/${sessionId}/journal`, token)).status,
      (await cluster.call(node, 'GET', `/v1/sessions/${sessionId}`, token)).status,
      (await cluster.call(node, 'GET', '/v1/whoami', token)).status,
    ];
  }

  it.each([
    ['on the owner', 'a'],
    ['on the other node (forwarded to the owner)', 'b'],
  ] as const)('a rotation %s: the old token is refused on both nodes at once, the new one works on both', async (_where, via) => {
    const { cluster, a, b, sessionId, token: old } = await twoNodes();
    // Both nodes have just taken the old token.
    expect(await answers(cluster, a, sessionId, old)).toEqual([200, 200, 200]);
    expect(await answers(cluster, b, sessionId, old)).toEqual([200, 200, 200]);

    const rotated = await cluster.call(via === 'a' ? a : b, 'POST', `/v1/sessions/${sessionId}/token`, old, {});
    expect(rotated).toMatchObject({ status: 200, body: { session_id: sessionId } });
    const fresh = (rotated.body as { token: string }).token;

    for (const node of [a, b]) {
      expect(await answers(cluster, node, sessionId, old)).toEqual([401, 401, 401]);
      expect(await answers(cluster, node, sessionId, fresh)).toEqual([200, 200, 200]);
    }
  });

  it('a close through the other node: its token is refused on both nodes, the admin reads it on both', async () => {
    const { cluster, a, b, sessionId, token } = await twoNodes();
    expect(await answers(cluster, b, sessionId, token)).toEqual([200, 200, 200]);

    const closed = await cluster.call(b, 'POST', `/v1/sessions/${sessionId}/close`, token, {});
    expect(closed).toMatchObject({ status: 200, body: { session_id: sessionId, state: 'closed' } });

    for (const node of [a, b]) {
      expect(await answers(cluster, node, sessionId, token)).toEqual([401, 401, 401]);
      expect(await cluster.call(node, 'GET', `/v1/sessions/${sessionId}`, SERVER_ADMIN_TOKEN)).toMatchObject({
        status: 200,
        body: { state: 'closed', closed_at: (closed.body as { closed_at: string }).closed_at },
      });
      expect((await cluster.call(node, 'GET', `/v1/sessions/${sessionId}/journal`, SERVER_ADMIN_TOKEN)).status).toBe(200);
      expect(await cluster.call(node, 'POST', `/v1/sessions/${sessionId}/loops`, SERVER_ADMIN_TOKEN, {})).toMatchObject({
        status: 409,
        body: { code: 'session_closed' },
      });
    }
  });

  it('after a rotation the owner dies: the node that takes the session over refuses the old token and takes the new one', async () => {
    const { cluster, a, b, sessionId, token: old } = await twoNodes();
    expect(await answers(cluster, b, sessionId, old)).toEqual([200, 200, 200]);
    const rotated = await cluster.call(a, 'POST', `/v1/sessions/${sessionId}/token`, SERVER_ADMIN_TOKEN, {});
    const fresh = (rotated.body as { token: string }).token;
    await a.stop('SIGKILL');

    // Until the lease expires B answers 503 for the session's owner routes; then it takes over.
    const taken = await cluster.retrying(() => cluster.call(b, 'GET', `/v1/sessions/${sessionId}`, fresh));
    expect(taken).toMatchObject({ status: 200, body: { session_id: sessionId, state: 'open' } });
    expect(await cluster.ownerOf(state.db!, sessionId)).toBe(b);
    expect(await answers(cluster, b, sessionId, old)).toEqual([401, 401, 401]);
    expect(await answers(cluster, b, sessionId, fresh)).toEqual([200, 200, 200]);
  });

  it('an owner frozen past its lease while the next owner rotated the token: once it resumes it never takes the old token', async () => {
    const { cluster, a, b, sessionId, token: old } = await twoNodes();
    expect(await answers(cluster, a, sessionId, old)).toEqual([200, 200, 200]);

    a.signal('SIGSTOP');
    try {
      // B takes the session over once A's lease expired, and rotates its token there.
      const rotated = await cluster.retrying(() => cluster.call(b, 'POST', `/v1/sessions/${sessionId}/token`, old, {}));
      expect(rotated.status).toBe(200);
      expect(await cluster.ownerOf(state.db!, sessionId)).toBe(b);
      const fresh = (rotated.body as { token: string }).token;

      a.signal('SIGCONT');
      // From the first request on (before A's next heartbeat finds out), and across its heartbeats.
      const until = Date.now() + 5_000;
      let asked = 0;
      while (Date.now() < until) {
        for (const path of [`/v1/sessions/${sessionId}/journal`, '/v1/whoami']) {
          const answer = await cluster.call(a, 'GET', path, old);
          asked++;
          expect({ path, status: answer.status }).toEqual({ path, status: 401 });
        }
      }
      expect(asked).toBeGreaterThan(20);
      expect((await cluster.call(a, 'GET', `/v1/sessions/${sessionId}/journal`, fresh)).status).toBe(200);
    } finally {
      a.signal('SIGCONT');
    }
  }, 90_000);
});
