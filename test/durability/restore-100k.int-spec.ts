import { writeBulkJournal } from '../support/bulk-journal.js';
import { createTestApp } from '../support/test-app.js';
import { tempDir } from './support/temp-dir.js';

const RECORDS = 100_000;

describe('restore of a large journal', () => {
  const dir = tempDir();
  afterAll(() => dir.remove());

  it(`rebuilds the pending set from ${RECORDS.toLocaleString('en')} journal records`, async () => {
    const databaseUrl = `sqlite:${dir.file('large.db')}`;
    // Create the schema, a session and a loop through the module itself.
    const first = await createTestApp({ databaseUrl });
    const { sessionId } = await first.service.openSession();
    const { loopId } = await first.service.openLoop(sessionId);
    await first.close();

    // Then write the journal in bulk, the way the module would have: notifications, and a
    // consumed record for every tenth of them.
    const expected = writeBulkJournal(dir.file('large.db'), sessionId, loopId, RECORDS);

    const restarted = await createTestApp({ databaseUrl });
    try {
      const pending = await restarted.service.pendingNotifications(sessionId, loopId);
      expect(pending).toHaveLength(expected.length);
      expect(pending.map((p) => p.commandId)).toEqual(expected);
      // Sequences ascend: journal order is acceptance order.
      expect(pending.every((p, i) => i === 0 || p.sequence > pending[i - 1]!.sequence)).toBe(true);
    } finally {
      await restarted.close();
    }
  });
});
