import { IdempotencyCollisionError, type ProcessNotificationsService } from 'nestjs-process-notifications';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { createTestApp, lifecycleRecord, notification } from '../support/test-app.js';

const DAY_MS = 24 * 60 * 60 * 1000;
// The clock the retention job is given: far enough ahead that everything written now is old.
const later = (days: number) => new Date(Date.now() + days * DAY_MS);

// Retention drops old payloads but keeps what de-duplication needs, forever (spec section 11).
async function retentionHolds(service: ProcessNotificationsService): Promise<void> {
  const { sessionId } = await service.openSession();
  const { loopId } = await service.openLoop(sessionId);
  const consumed = notification(sessionId, loopId);
  const pending = notification(sessionId, loopId);
  const record = lifecycleRecord(sessionId, loopId);
  await service.notifyProcessCompletion(sessionId, consumed);
  await service.notifyProcessCompletion(sessionId, pending);
  await service.publishProcessLifecycle(sessionId, record);
  await service.consume(sessionId, loopId, consumed.command_id as string);

  // Not old enough yet at 29 days (the default keeps 30): nothing changes.
  expect(await service.pruneJournal(later(29))).toBe(0);
  const payloads = async () =>
    Object.fromEntries(
      (await service.readJournal(sessionId, 0, 100)).map((entry) => [`${entry.kind}:${entry.idempotencyId}`, entry.payload]),
    );
  expect(Object.values(await payloads()).every((payload) => payload !== null)).toBe(true);

  expect(await service.pruneJournal(later(31))).toBe(3);
  expect(await payloads()).toEqual({
    [`process_notification:${consumed.command_id}`]: null,
    [`process_notification:${pending.command_id}`]: pending,
    [`started:${record.event_id}`]: null,
    [`process_notification_consumed:consumed:${consumed.command_id}`]: null,
  });
  // Pending stays pending and consumable.
  expect((await service.pendingNotifications(sessionId, loopId)).map((n) => n.commandId)).toEqual([pending.command_id]);

  // A late identical retry is still a duplicate, a different payload still a collision.
  await expect(service.notifyProcessCompletion(sessionId, { ...consumed })).resolves.toMatchObject({
    disposition: 'duplicate',
    appended: false,
  });
  await expect(service.notifyProcessCompletion(sessionId, { ...consumed, process_handle: 'other' })).rejects.toBeInstanceOf(
    IdempotencyCollisionError,
  );
  await expect(service.publishProcessLifecycle(sessionId, { ...record })).resolves.toMatchObject({ appended: false });
  await expect(service.publishProcessLifecycle(sessionId, { ...record, process_handle: 'other' })).rejects.toBeInstanceOf(
    IdempotencyCollisionError,
  );
  // Nothing was put back into the loop, and a second run finds nothing more to drop.
  expect(await service.pendingNotifications(sessionId, loopId)).toHaveLength(1);
  expect(await service.pruneJournal(later(31))).toBe(0);
}

describe('journal retention (injected clock)', () => {
  it('on SQLite drops consumed and lifecycle payloads, keeps pending ones and the dedupe keys', async () => {
    const app = await createTestApp();
    try {
      await retentionHolds(app.service);
    } finally {
      await app.close();
    }
  });

  it('on PostgreSQL does the same', async () => {
    const admin = await connectPostgresAdmin();
    if (!admin) {
      if (process.env.CI === 'true') throw new Error('PostgreSQL is unreachable in CI');
      return;
    }
    const { name, databaseUrl } = freshSchema();
    await admin.query(`CREATE SCHEMA "${name}"`);
    const app = await createTestApp({ databaseUrl });
    try {
      await retentionHolds(app.service);
    } finally {
      await app.close();
      await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await admin.destroy();
    }
  });

  it('refuses a retention that is not a positive number of days', async () => {
    await expect(createTestApp({ retentionDays: 0 })).rejects.toThrow('retentionDays must be a positive integer');
  });
});
