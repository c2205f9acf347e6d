import type { ProcessNotificationsService } from 'nestjs-process-notifications';
import type { TestingModule } from '@nestjs/testing';
import type { DataSource } from 'typeorm';
import { connectPostgresAdmin, freshSchema, POSTGRES_URL } from '../support/postgres.js';
import { createTestApp, notification, openSessionWithLoop } from '../support/test-app.js';
import { expectConcurrentCollidingDeliveries, expectConcurrentIdenticalDeliveries } from './support/concurrent-deliveries.js';
import { dataSourceOf, journalCounts } from './support/journal-probe.js';

// Runs against a local PostgreSQL when one answers (trust auth), each run in its own schema.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

describeOnPostgres(`concurrent deliveries on PostgreSQL (${admin ? POSTGRES_URL : 'unreachable: skipped'})`, () => {
  const { name: schema, databaseUrl } = freshSchema();
  let moduleRef: TestingModule;
  let service: ProcessNotificationsService;
  let dataSource: DataSource;
  let close: (() => Promise<void>) | undefined;
  let sessionId: string;
  let loopId: string;

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA "${schema}"`);
    ({ moduleRef, service, close } = await createTestApp({ databaseUrl, loopCapacity: 1000 }));
    dataSource = dataSourceOf(moduleRef);
  });

  afterAll(async () => {
    await close?.();
    await admin!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin!.destroy();
  });

  beforeEach(async () => {
    ({ sessionId, loopId } = await openSessionWithLoop(service));
  });

  it('works in its own schema', async () => {
    const [{ current_schema: current }] = (await dataSource.query('SELECT current_schema()')) as [{ current_schema: string }];
    expect(current).toBe(schema);
    expect(await journalCounts(dataSource)).toEqual({ rows: 0, distinctIds: 0 });
  });

  it('50 concurrent identical deliveries: one record, one accepted, 49 duplicate', async () => {
    await expectConcurrentIdenticalDeliveries(service, dataSource, sessionId, loopId, 50);
  });

  it('50 concurrent deliveries of one command_id with different handles: one record, one success, 49 collisions', async () => {
    await expectConcurrentCollidingDeliveries(service, dataSource, sessionId, loopId, 50);
  });

  it('enforces the idempotency key in the database itself, not only by a prior SELECT', async () => {
    const { commandId } = await service.notifyProcessCompletion(sessionId, notification(sessionId, loopId));
    await expect(
      dataSource.query(
        `INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, created_at)
         VALUES ($1, $2, 'process_notification', $3, 'x', '{}', 'now')`,
        [sessionId, loopId, commandId],
      ),
    ).rejects.toThrow(/unique|duplicate/i);
  });

  it('restores the unconsumed notifications after a restart, in journal order', async () => {
    const sent = [notification(sessionId, loopId), notification(sessionId, loopId), notification(sessionId, loopId)];
    for (const n of sent) await service.notifyProcessCompletion(n.session_id as string, n);
    await service.consume(sessionId, loopId, sent[1]!.command_id as string);
    await close!();
    ({ moduleRef, service, close } = await createTestApp({ databaseUrl, loopCapacity: 1000 }));
    dataSource = dataSourceOf(moduleRef);
    const restored = await service.pendingNotifications(sessionId, loopId);
    expect(restored.map((p) => p.commandId)).toEqual([sent[0]!.command_id, sent[2]!.command_id]);
    expect(restored.every((p) => typeof p.sequence === 'number')).toBe(true);
    await expect(service.notifyProcessCompletion(sent[1].session_id as string, sent[1])).resolves.toMatchObject({
      disposition: 'duplicate',
      appended: false,
    });
  });

  it('a second node on one database: refuses the session while the first owns it, writes nothing, then takes it over whole', async () => {
    // A second module instance (its own pool and node id, as a second server process has).
    const other = await createTestApp({ databaseUrl, loopCapacity: 1000 });
    try {
      const held = notification(sessionId, loopId);
      await expect(service.notifyProcessCompletion(sessionId, held)).resolves.toMatchObject({ disposition: 'accepted' });
      const refused = notification(sessionId, loopId);
      await expect(other.service.notifyProcessCompletion(sessionId, refused)).rejects.toMatchObject({ code: 'owner_unavailable' });
      await expect(other.service.pendingNotifications(sessionId, loopId)).rejects.toMatchObject({ code: 'owner_unavailable' });
      const ids = [held.command_id, refused.command_id];
      const otherDataSource = dataSourceOf(other.moduleRef);
      const count = async (): Promise<number> =>
        (
          (await otherDataSource.query(`SELECT count(*)::int AS count FROM pn_journal WHERE idempotency_id = ANY($1)`, [ids])) as [
            { count: number },
          ]
        )[0].count;
      expect(await count()).toBe(1);

      // The first node goes away (its leases are released at shutdown): the second takes over.
      await close!();
      close = undefined;
      await expect(other.service.notifyProcessCompletion(sessionId, { ...held })).resolves.toMatchObject({
        disposition: 'duplicate',
        appended: false,
      });
      await expect(other.service.notifyProcessCompletion(sessionId, refused)).resolves.toMatchObject({ disposition: 'accepted' });
      expect((await other.service.pendingNotifications(sessionId, loopId)).map((p) => p.commandId)).toEqual(ids);
      expect(await count()).toBe(2);
    } finally {
      await other.close();
      ({ moduleRef, service, close } = await createTestApp({ databaseUrl, loopCapacity: 1000 }));
      dataSource = dataSourceOf(moduleRef);
    }
  });
});
