import type { DataSource, EntityManager } from 'typeorm';
import { CONSUMED_KIND } from './journal-record.entity.js';
import type { JournalRecordEntity } from './journal-record.entity.js';

/** What one transaction's records change of one loop's counts. */
interface LoopChange {
  readonly sessionId: string;
  readonly loopId: string;
  appended: number;
  consumed: number;
  /** The first notification appended, the loop's oldest unconsumed one if it had none. */
  first?: JournalRecordEntity;
}

/**
 * The counts the admin read API answers from (spec section 12.1), kept in the database as the
 * journal changes: per loop `unconsumed` (+1 for a notification appended, -1 for a consumed
 * record) and its oldest unconsumed notification, per session `last_sequence`. Called by the
 * journal writer with every record a transaction wrote, inside that transaction, so the counts
 * commit (or roll back) with the records. Never a scan of the journal: one UPDATE per loop and
 * session written, plus, after a consume, one index probe for the next oldest unconsumed
 * notification (ix_pn_journal_loop_notifications, from the current oldest on).
 */
export class JournalCounters {
  private readonly sessionSql: string;
  private readonly appendedSql: string;
  private readonly oldestSql: string;
  private readonly nextOldestSql: string;
  private readonly consumedSql: string;

  // Placeholders are numbered in the order they appear (SQLite's `?` are positional).
  constructor(dataSource: DataSource) {
    const p = (index: number) => dataSource.driver.createParameter(`p${index}`, index);
    this.sessionSql = `UPDATE pn_sessions SET last_sequence = ${p(0)} WHERE session_id = ${p(1)} AND last_sequence < ${p(2)}`;
    this.appendedSql = `UPDATE pn_loops SET unconsumed = unconsumed + ${p(0)},
      oldest_unconsumed_sequence = COALESCE(oldest_unconsumed_sequence, ${p(1)}),
      oldest_unconsumed_at = COALESCE(oldest_unconsumed_at, ${p(2)}) WHERE session_id = ${p(3)} AND loop_id = ${p(4)}`;
    this.oldestSql = `SELECT oldest_unconsumed_sequence FROM pn_loops WHERE session_id = ${p(0)} AND loop_id = ${p(1)}`;
    const from = `FROM pn_journal j`;
    const range = `j.session_id = ${p(0)} AND j.loop_id = ${p(1)} AND j.kind = 'process_notification' AND j.sequence >= ${p(2)}`;
    const consumed = `c.session_id = j.session_id AND c.cause_command_id = j.idempotency_id AND c.kind = '${CONSUMED_KIND}'`;
    // On PostgreSQL NOT EXISTS becomes an anti join that may probe on session_id alone (a scan of
    // the session's consumed records per candidate: 37 ms for a 4,000-record session); a LATERAL
    // with LIMIT 1 is one index probe per candidate. SQLite runs NOT EXISTS as that probe already.
    this.nextOldestSql =
      dataSource.options.type === 'postgres'
        ? `SELECT j.sequence, j.created_at ${from}
      LEFT JOIN LATERAL (SELECT 1 AS found FROM pn_journal c WHERE ${consumed} LIMIT 1) c ON true
      WHERE ${range} AND c.found IS NULL ORDER BY j.sequence LIMIT 1`
        : `SELECT j.sequence, j.created_at ${from}
      WHERE ${range} AND NOT EXISTS (SELECT 1 FROM pn_journal c WHERE ${consumed})
      ORDER BY j.sequence LIMIT 1`;
    this.consumedSql = `UPDATE pn_loops SET unconsumed = unconsumed + ${p(0)},
      oldest_unconsumed_sequence = ${p(1)}, oldest_unconsumed_at = ${p(2)} WHERE session_id = ${p(3)} AND loop_id = ${p(4)}`;
  }

  /** Applies what `records` (just written, in sequence order, in this transaction) change. */
  async apply(manager: EntityManager, records: readonly JournalRecordEntity[]): Promise<void> {
    if (records.length === 0) return;
    const sessions = new Map<string, number>();
    const loops = new Map<string, LoopChange>();
    for (const record of records) {
      sessions.set(record.sessionId, Math.max(sessions.get(record.sessionId) ?? 0, record.sequence));
      const appended = record.kind === 'process_notification';
      if (record.loopId === null || (!appended && record.kind !== CONSUMED_KIND)) continue;
      const key = `${record.sessionId}/${record.loopId}`;
      let change = loops.get(key);
      if (!change) loops.set(key, (change = { sessionId: record.sessionId, loopId: record.loopId, appended: 0, consumed: 0 }));
      if (appended) {
        change.appended += 1;
        change.first ??= record;
      } else {
        change.consumed += 1;
      }
    }
    for (const [sessionId, lastSequence] of sessions) await manager.query(this.sessionSql, [lastSequence, sessionId, lastSequence]);
    for (const change of loops.values()) await this.applyToLoop(manager, change);
  }

  private async applyToLoop(manager: EntityManager, change: LoopChange): Promise<void> {
    const { sessionId, loopId, appended, consumed, first } = change;
    if (consumed === 0) {
      await manager.query(this.appendedSql, [appended, first!.sequence, first!.createdAt, sessionId, loopId]);
      return;
    }
    // Something was consumed: the oldest unconsumed is the first notification from the current
    // oldest on (or, when the loop had none, from this transaction's first) without a consumed
    // record, which this transaction's own consumed records already count as.
    const [row] = (await manager.query(this.oldestSql, [sessionId, loopId])) as Array<{ oldest_unconsumed_sequence: number | null }>;
    const from = row?.oldest_unconsumed_sequence ?? first?.sequence;
    const [next] =
      from === undefined || from === null
        ? []
        : ((await manager.query(this.nextOldestSql, [sessionId, loopId, from])) as Array<{ sequence: number; created_at: string }>);
    await manager.query(this.consumedSql, [
      appended - consumed,
      next === undefined ? null : Number(next.sequence),
      next?.created_at ?? null,
      sessionId,
      loopId,
    ]);
  }
}
