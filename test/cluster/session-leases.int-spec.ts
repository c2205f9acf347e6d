import type { ProcessNotificationsService } from 'nestjs-process-notifications';
import type { TestingModule } from '@nestjs/testing';
import type { DataSource } from 'typeorm';
import { firstValueFrom } from 'rxjs';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { createTestApp, notification, openSessionWithLoop } from '../support/test-app.js';
import { dataSourceOf } from '../notifications/support/journal-probe.js';

// Two module instances on one schema are two nodes (spec section 9), driven through the library
// so each step happens exactly when the test says: the real leases, fencing and restore.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

type Node = { moduleRef: TestingModule; service: ProcessNotificationsService; close: () => Promise<void> };

describeOnPostgres('session leases on PostgreSQL (two nodes, one database)', () => {
  const { name: schema, databaseUrl } = freshSchema();
  const nodes: Node[] = [];
  let db: DataSource;

  const startNode = async (): Promise<Node> => {
    // A TTL far longer than the test, so no heartbeat runs in between: the test expires leases.
    const node = await createTestApp({ databaseUrl, loopCapacity: 1000, leaseTtlMs: 600_000 });
    nodes.push(node);
    return node;
  };
  const journaled = async (ids: string[]): Promise<string[]> =>
    (
      (await db.query('SELECT idempotency_id FROM pn_journal WHERE idempotency_id = ANY($1) ORDER BY sequence', [ids])) as Array<{
        idempotency_id: string;
      }>
    ).map((row) => row.idempotency_id);
  // Makes a node's heartbeat (and so every lease it holds) expire now, as a frozen node's would.
  const expire = (node: Node) =>
    db.query(`UPDATE pn_nodes SET expires_at = now() - interval '1 second' WHERE node_id = $1`, [node.service.nodeId]);

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA "${schema}"`);
    db = dataSourceOf((await startNode()).moduleRef);
  });

  afterAll(async () => {
    for (const node of nodes.splice(0)) await node.close();
    await admin!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin!.destroy();
  });

  it('a session is answered by one node: the other refuses with owner_unavailable and writes nothing', async () => {
    const [a] = nodes as [Node];
    const b = await startNode();
    const { sessionId, loopId } = await openSessionWithLoop(a.service);
    const refused = notification(sessionId, loopId);
    await expect(b.service.notifyProcessCompletion(sessionId, refused)).rejects.toMatchObject({ code: 'owner_unavailable' });
    await expect(b.service.getSession(sessionId)).rejects.toMatchObject({ code: 'owner_unavailable' });
    await expect(b.service.locateOwner(sessionId)).resolves.toMatchObject({ kind: 'node', nodeId: a.service.nodeId });
    await expect(a.service.locateOwner(sessionId)).resolves.toEqual({ kind: 'self' });
    expect(await journaled([refused.command_id as string])).toEqual([]);
    // Any node reads any session's journal, and knows a session another node created.
    await expect(b.service.readJournal(sessionId)).resolves.toEqual([]);
    const { sessionId: created, token } = await b.service.openSession();
    await expect(a.service.authenticate(token)).resolves.toBe(created);
  });

  it('fencing: a node whose lease was taken over writes nothing more for the session, and forgets its state', async () => {
    const [a] = nodes as [Node];
    const b = nodes[1] ?? (await startNode());
    const { sessionId, loopId } = await openSessionWithLoop(a.service);
    const held = notification(sessionId, loopId);
    await a.service.notifyProcessCompletion(sessionId, held);
    const pendingOnA = a.service.pendingCount;

    // A freezes past its TTL (its heartbeat row expires); B takes the session over at a new
    // epoch, restoring what A had accepted.
    await expire(a);
    await expect(b.service.notifyProcessCompletion(sessionId, { ...held })).resolves.toMatchObject({
      disposition: 'duplicate',
      appended: false,
    });
    // A does not know yet (its own clock says its lease lasts): its write reaches the journal
    // transaction, where the lease check refuses it.
    const stale = notification(sessionId, loopId);
    await expect(a.service.notifyProcessCompletion(sessionId, stale)).rejects.toMatchObject({ code: 'owner_unavailable' });
    const staleConsume = a.service.consume(sessionId, loopId, held.command_id as string);
    await expect(staleConsume).rejects.toMatchObject({ code: 'owner_unavailable' });
    expect(await journaled([held.command_id as string, stale.command_id as string])).toEqual([held.command_id]);
    // A dropped the session: it now locates B, and its pending count no longer includes it.
    await expect(a.service.locateOwner(sessionId)).resolves.toMatchObject({ kind: 'node', nodeId: b.service.nodeId });
    expect(a.service.pendingCount).toBe(pendingOnA - 1);
    expect((await b.service.pendingNotifications(sessionId, loopId)).map((p) => p.commandId)).toEqual([held.command_id]);
    const [{ epoch }] = (await db.query('SELECT epoch FROM pn_session_leases WHERE session_id = $1', [sessionId])) as [{ epoch: string }];
    expect(Number(epoch)).toBe(2);
  });

  it('a released node (shutdown) hands its sessions over at once, pending sets and stopped loops included', async () => {
    const a = await startNode();
    const b = nodes.find((node) => node !== a && node !== nodes[0]) ?? (await startNode());
    const { sessionId, loopId } = await openSessionWithLoop(a.service);
    const { loopId: stoppedLoop } = await a.service.openLoop(sessionId);
    const held = notification(sessionId, loopId);
    const heldByStopped = notification(sessionId, stoppedLoop);
    await a.service.notifyProcessCompletion(sessionId, held);
    await a.service.notifyProcessCompletion(sessionId, heldByStopped);
    await a.service.stopLoop(sessionId, stoppedLoop);
    const commits = firstValueFrom(b.service.journalChanges(sessionId));

    await a.close();
    nodes.splice(nodes.indexOf(a), 1);
    const restored = await b.service.getSession(sessionId);
    expect(restored.loops.map(({ loopId: id, state, pending }) => ({ id, state, pending }))).toEqual([
      { id: loopId, state: 'running', pending: 1 },
      { id: stoppedLoop, state: 'stopped', pending: 1 },
    ]);
    await expect(b.service.notifyProcessCompletion(sessionId, notification(sessionId, stoppedLoop))).rejects.toMatchObject({
      code: 'delivery_stopped',
      stopCause: 'loop_stopped',
    });
    await expect(b.service.consume(sessionId, loopId, held.command_id as string)).resolves.toMatchObject({ consumed: true });
    // The consume B committed reached B's own readers as a hint.
    await commits;
  });
});
