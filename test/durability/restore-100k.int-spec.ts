import Database from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
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

    // Then write the journal in bulk, the way the module would have: 90k notifications, and a
    // consumed record for every tenth of them.
    const db = new Database(dir.file('large.db'));
    const insert = db.prepare(
      'INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const expected: string[] = [];
    db.transaction(() => {
      const now = new Date().toISOString();
      let written = 0;
      for (let i = 0; written < RECORDS; i++) {
        const commandId = randomUUID();
        const payload = JSON.stringify({
          command_id: commandId,
          session_id: sessionId,
          loop_id: loopId,
          process_handle: `proc-${i}`,
          state: 'exited',
          reason: 'exited',
        });
        const fingerprint = createHash('sha256').update(`process_notification\n${payload}`).digest('hex');
        insert.run(sessionId, loopId, 'process_notification', commandId, fingerprint, payload, null, now);
        written++;
        if (i % 10 === 0 && written < RECORDS) {
          const consumed = JSON.stringify({ command_id: commandId, loop_id: loopId });
          insert.run(sessionId, loopId, 'process_notification_consumed', `consumed:${commandId}`, 'x'.repeat(64), consumed, commandId, now);
          written++;
        } else {
          expected.push(commandId);
        }
      }
    })();
    db.close();

    const restarted = await createTestApp({ databaseUrl });
    try {
      const pending = restarted.service.pendingNotifications(sessionId, loopId);
      expect(pending).toHaveLength(expected.length);
      expect(pending.map((p) => p.commandId)).toEqual(expected);
      // Sequences ascend: journal order is acceptance order.
      expect(pending.every((p, i) => i === 0 || p.sequence > pending[i - 1]!.sequence)).toBe(true);
    } finally {
      await restarted.close();
    }
  });
});
