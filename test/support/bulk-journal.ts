import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { benchNotification, fingerprintOf } from './notification-fixture.js';

/**
 * Writes `records` journal records straight into an existing SQLite journal, the way the module
 * would have: notifications for one loop, and a consumed record for every tenth of them.
 * Shared by the restore benchmark and the 100k restore test.
 * @returns the command ids that stay pending, in journal order
 */
export function writeBulkJournal(path: string, sessionId: string, loopId: string, records: number): string[] {
  const db = new Database(path);
  try {
    const insert = db.prepare(
      'INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const pending: string[] = [];
    db.transaction(() => {
      const now = new Date().toISOString();
      let written = 0;
      for (let i = 0; written < records; i++) {
        const commandId = randomUUID();
        const payload = JSON.stringify(benchNotification(sessionId, loopId, i, commandId));
        const fingerprint = fingerprintOf('process_notification', payload);
        insert.run(sessionId, loopId, 'process_notification', commandId, fingerprint, payload, null, now);
        written++;
        if (i % 10 === 0 && written < records) {
          const consumed = JSON.stringify({ command_id: commandId, loop_id: loopId });
          insert.run(sessionId, loopId, 'process_notification_consumed', `consumed:${commandId}`, 'x'.repeat(64), consumed, commandId, now);
          written++;
        } else {
          pending.push(commandId);
        }
      }
    })();
    return pending;
  } finally {
    db.close();
  }
}
