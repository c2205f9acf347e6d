import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import type { BenchRow } from './bench-row.interface.js';
import { measure } from './measure.js';
import { benchNotification, fingerprintOf } from '../../test/support/notification-fixture.js';
import { tempDatabase } from './temp-database.js';

/** The journal table as the library's migration creates it on SQLite. */
export const JOURNAL_SCHEMA = `
  CREATE TABLE pn_journal (
    sequence integer PRIMARY KEY AUTOINCREMENT NOT NULL,
    session_id varchar(36) NOT NULL,
    loop_id varchar(36),
    kind varchar(40) NOT NULL,
    idempotency_id varchar(80) NOT NULL,
    fingerprint varchar(64) NOT NULL,
    payload text NOT NULL,
    cause_command_id varchar(36),
    created_at varchar(32) NOT NULL
  );
  CREATE UNIQUE INDEX uq_pn_journal_idempotency ON pn_journal (idempotency_id, session_id);
  CREATE INDEX ix_pn_journal_loop_notifications ON pn_journal (session_id, loop_id, sequence) WHERE kind = 'process_notification';
  CREATE INDEX ix_pn_journal_loop_sequence ON pn_journal (session_id, loop_id, sequence);
  CREATE INDEX ix_pn_journal_session_sequence ON pn_journal (session_id, sequence);
`;

/** Options of the floor rows; `batch` > 1 adds a row committing that many appends per transaction. */
export interface FloorOptions {
  readonly items: number;
  readonly warmup: number;
  readonly batch: number;
}

/**
 * The floor: the same idempotent append done with raw better-sqlite3 (same table, same pragmas,
 * canonical JSON and SHA-256 fingerprint, prepared SELECT then INSERT) and nothing else.
 * Synchronous, so concurrency is 1 by nature.
 */
export function rawSqliteFloorRows({ items, warmup, batch }: FloorOptions): BenchRow[] {
  const row = (database: 'memory' | 'file', perTransaction: number): BenchRow => ({
    id: perTransaction === 1 ? `floor/${database}` : `floor/${database}/batch${perTransaction}`,
    label:
      perTransaction === 1 ? 'floor: raw better-sqlite3, 1 txn/item' : `raw better-sqlite3, ${perTransaction} items/txn (latency per txn)`,
    database,
    concurrency: 1,
    floor: perTransaction === 1 ? undefined : `floor/${database}`,
    async run() {
      const file = database === 'file' ? tempDatabase('floor.db') : undefined;
      const db = new Database(file?.path ?? ':memory:');
      try {
        // The library's pragmas (data-source-options.ts).
        if (file) db.pragma('journal_mode = WAL');
        db.pragma('synchronous = FULL');
        db.exec(JOURNAL_SCHEMA);
        const select = db.prepare('SELECT sequence, fingerprint FROM pn_journal WHERE session_id = ? AND idempotency_id = ?');
        const insert = db.prepare(
          `INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, NULL, ?)`,
        );
        const sessionId = randomUUID();
        const loopId = randomUUID();
        const appendOne = (commandId: string, index: number): number => {
          const payload = JSON.stringify(benchNotification(sessionId, loopId, index, commandId));
          const fingerprint = fingerprintOf('process_notification', payload);
          const existing = select.get(sessionId, commandId) as { sequence: number; fingerprint: string } | undefined;
          if (existing) return existing.sequence;
          return Number(
            insert.run(sessionId, loopId, 'process_notification', commandId, fingerprint, payload, new Date().toISOString())
              .lastInsertRowid,
          );
        };
        const appendMany = db.transaction((ids: string[], first: number) => ids.forEach((id, i) => appendOne(id, first + i)));
        const run = (count: number) => {
          const ids = Array.from({ length: count }, () => randomUUID());
          return measure(Math.ceil(count / perTransaction), 1, (chunk) =>
            appendMany(ids.slice(chunk * perTransaction, (chunk + 1) * perTransaction), chunk * perTransaction),
          );
        };
        await run(warmup);
        // Latencies are per transaction: what each caller of a batch waits.
        return { ...(await run(items)), items };
      } finally {
        db.close();
        file?.remove();
      }
    },
  });
  const rows = [row('memory', 1), row('file', 1)];
  if (batch > 1) rows.push(row('memory', batch), row('file', batch));
  return rows;
}
