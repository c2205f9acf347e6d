import { jest } from '@jest/globals';
import type { ProcessNotificationsService } from 'nestjs-process-notifications';
import type { TestingModule } from '@nestjs/testing';
import type { EntityManager } from 'typeorm';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { createTestApp } from '../support/test-app.js';
import { dataSourceOf } from '../notifications/support/journal-probe.js';

// A node answers journal reads and token checks of sessions other nodes own, reading them from
// the database; what it keeps of other nodes' sessions is bounded by `sessionCacheSize`, so a
// node's memory does not grow with every session of the cluster, and it keeps none of their
// tokens (their owner may rotate them). The sessions it owns are never dropped.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

type Node = { moduleRef: TestingModule; service: ProcessNotificationsService; close: () => Promise<void> };

describeOnPostgres('bounded session cache on PostgreSQL (two nodes, one database)', () => {
  const { name: schema, databaseUrl } = freshSchema();
  const nodes: Node[] = [];
  let a: Node;
  let b: Node;
  let sessionReads: ReturnType<typeof jest.spyOn>;

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA "${schema}"`);
    a = await createTestApp({ databaseUrl, leaseTtlMs: 600_000 });
    nodes.push(a);
    b = await createTestApp({ databaseUrl, leaseTtlMs: 600_000, sessionCacheSize: 2 });
    nodes.push(b);
    // Every session or token B looks up in the database (the real query runs).
    const manager: EntityManager = dataSourceOf(b.moduleRef).manager;
    sessionReads = jest.spyOn(manager, 'findOneBy');
  });

  beforeEach(() => sessionReads.mockClear());

  afterAll(async () => {
    for (const node of nodes.splice(0)) await node.close();
    await admin!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin!.destroy();
  });

  it("reads another node's token from the database at every use: none is kept, so a rotation there counts at once", async () => {
    const opened = [await a.service.openSession(), await a.service.openSession(), await a.service.openSession()];
    for (const { sessionId, token } of opened) await expect(b.service.authenticate(token)).resolves.toBe(sessionId);
    expect(sessionReads).toHaveBeenCalledTimes(3);

    sessionReads.mockClear();
    // Asked again: read again, and still answered.
    await expect(b.service.authenticate(opened[2]!.token)).resolves.toBe(opened[2]!.sessionId);
    await expect(b.service.authenticate(opened[0]!.token)).resolves.toBe(opened[0]!.sessionId);
    expect(sessionReads).toHaveBeenCalledTimes(2);
  });

  it("keeps at most sessionCacheSize of other nodes' sessions for journal reads", async () => {
    const opened = [await a.service.openSession(), await a.service.openSession(), await a.service.openSession()];
    for (const { sessionId } of opened) await expect(b.service.readJournal(sessionId)).resolves.toEqual([]);
    sessionReads.mockClear();
    await b.service.readJournal(opened[2]!.sessionId);
    expect(sessionReads).not.toHaveBeenCalled();
    await b.service.readJournal(opened[0]!.sessionId);
    expect(sessionReads).toHaveBeenCalledTimes(1);
  });

  it('never drops a session the node owns, however many others it reads', async () => {
    const own = await b.service.openSession();
    // No node owns it yet: B takes it over on its first call.
    await expect(b.service.getSession(own.sessionId)).resolves.toMatchObject({ sessionId: own.sessionId, loops: [] });
    for (let i = 0; i < 5; i++) {
      const other = await a.service.openSession();
      await b.service.authenticate(other.token);
      await b.service.readJournal(other.sessionId);
    }
    sessionReads.mockClear();
    await expect(b.service.authenticate(own.token)).resolves.toBe(own.sessionId);
    await expect(b.service.openLoop(own.sessionId)).resolves.toMatchObject({ state: 'running' });
    expect(sessionReads).not.toHaveBeenCalled();
  });

  it('an unknown token or session is still refused', async () => {
    await expect(b.service.authenticate('not-a-token')).resolves.toBeUndefined();
    await expect(b.service.readJournal('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'session_not_found' });
  });
});
