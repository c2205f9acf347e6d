import { tempDir } from '../durability/support/temp-dir.js';
import { inFreshSchema } from '../support/postgres.js';
import { createTestApp, notification } from '../support/test-app.js';

// An append inserts first (on SQLite its unique-index conflict is caught): an identical retry and
// a collision in between must write nothing, the sequence included, and consume nothing twice.
async function retriesDrawNoSequence(databaseUrl: string): Promise<void> {
  const app = await createTestApp({ databaseUrl });
  try {
    const { service } = app;
    const { sessionId } = await service.openSession();
    const { loopId } = await service.openLoop(sessionId);
    const first = notification(sessionId, loopId);
    const accepted = await service.notifyProcessCompletion(sessionId, first);
    expect(accepted).toMatchObject({ disposition: 'accepted', appended: true });
    // An identical retry and a collision (same id, another payload).
    await expect(service.notifyProcessCompletion(sessionId, { ...first })).resolves.toMatchObject({
      disposition: 'duplicate',
      appended: false,
    });
    await expect(service.notifyProcessCompletion(sessionId, { ...first, process_handle: 'other' })).rejects.toMatchObject({
      code: 'idempotency_collision',
    });
    // Two consumes of it at once: one batch, the second's insert meets the first's record.
    const consumes = await Promise.all([
      service.consume(sessionId, loopId, first.command_id as string),
      service.consume(sessionId, loopId, first.command_id as string),
    ]);
    expect(consumes.map((answer) => answer.consumed).sort()).toEqual([false, true]);
    const consumed = consumes.find((answer) => answer.consumed)!;
    expect(consumes.map((answer) => answer.sequence)).toEqual([consumed.sequence, consumed.sequence]);
    const second = await service.notifyProcessCompletion(sessionId, notification(sessionId, loopId));

    // Three records, in consecutive sequences: nothing was drawn for the retries.
    const records = await service.readJournal(sessionId);
    expect(records.map((record) => record.kind)).toEqual(['process_notification', 'process_notification_consumed', 'process_notification']);
    expect(records.map((record) => record.sequence)).toEqual([accepted.sequence, consumed.sequence, second.sequence]);
    expect(consumed.sequence - accepted.sequence).toBe(1);
    expect(second.sequence - consumed.sequence).toBe(1);
  } finally {
    await app.close();
  }
}

describe('retries of an append', () => {
  it('write nothing on a SQLite file, not even a sequence number', async () => {
    const dir = tempDir();
    try {
      await retriesDrawNoSequence(`sqlite:${dir.file('journal.db')}`);
    } finally {
      dir.remove();
    }
  });

  it('write nothing on PostgreSQL, not even a sequence number', async () => {
    await inFreshSchema(retriesDrawNoSequence);
  });
});
