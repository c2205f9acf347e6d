import type { DataSource, EntityManager } from 'typeorm';
import { CONSUMED_KIND } from './journal-record.entity.js';
import { consumedRecordOf } from './consumed-record.js';
import type { JournalRecordEntity } from './journal-record.entity.js';
import { storeDialectOf } from '../dialects/store-dialects.js';
import type { StoreDialect } from '../dialects/store-dialect.js';
import type { JournalNotice } from './journal-commit-hint.js';

/** What one transaction's records change of one loop's counts. */
interface LoopChange {
  readonly sessionId: string;
  readonly loopId: string;
  appended: number;
  consumed: number;
  /** The first notification appended, the loop's oldest unconsumed one if it had none. */
  first?: JournalRecordEntity;
}

// The loop columns of the one-statement form, in its unnest's order.
const LOOP_CHANGE_COLUMNS = ['session_id', 'loop_id', 'delta', 'consumed', 'first_sequence', 'first_at'] as const;

/**
 * The counts the admin read API answers from (spec section 12.1), kept in the database as the
 * journal changes: per loop `unconsumed` (+1 for a notification appended, -1 for a consumed
 * record) and its oldest unconsumed notification, per session `last_sequence`. Called by the
 * journal writer with every record a transaction wrote, inside that transaction, so the counts
 * commit (or roll back) with the records. Never a scan of the journal: one UPDATE per loop and
 * session written, plus, after a consume, one index probe for the next oldest unconsumed
 * notification (ix_pn_journal_loop_notifications, from the current oldest on). On PostgreSQL, where
 * each statement is a round trip the batch waits for, all of it is one statement, with the
 * batch's commit hint (its NOTIFY) in it too.
 */
export class JournalCounters {
  private readonly sessionSql: string;
  private readonly appendedSql: string;
  private readonly oldestSql: string;
  private readonly nextOldestSql: string;
  private readonly consumedSql: string;
  private readonly dialect: StoreDialect;
  // Where every statement is a round trip (PostgreSQL): everything in one, without and with the hint.
  private readonly batchedSql?: { readonly quiet: string; readonly notifying: string };

  // Placeholders are numbered in the order they appear (SQLite's `?` are positional).
  constructor(dataSource: DataSource) {
    const p = (index: number) => dataSource.driver.createParameter(`p${index}`, index);
    this.sessionSql = `UPDATE pn_sessions SET last_sequence = ${p(0)} WHERE session_id = ${p(1)} AND last_sequence < ${p(2)}`;
    this.appendedSql = `UPDATE pn_loops SET unconsumed = unconsumed + ${p(0)},
      oldest_unconsumed_sequence = COALESCE(oldest_unconsumed_sequence, ${p(1)}),
      oldest_unconsumed_at = COALESCE(oldest_unconsumed_at, ${p(2)}) WHERE session_id = ${p(3)} AND loop_id = ${p(4)}`;
    this.oldestSql = `SELECT oldest_unconsumed_sequence FROM pn_loops WHERE session_id = ${p(0)} AND loop_id = ${p(1)}`;
    const consumed = consumedRecordOf('c', 'j');
    // One index probe per candidate for its consumed record (probeJoin): on PostgreSQL a NOT
    // EXISTS became an anti join probing on session_id alone, a scan of the session's consumed
    // records per candidate (loop-reads-postgres spec).
    this.nextOldestSql = `SELECT j.sequence, j.created_at FROM pn_journal j ${storeDialectOf(dataSource).probeJoin('pn_journal', 'c', consumed)}
      WHERE j.session_id = ${p(0)} AND j.loop_id = ${p(1)} AND j.kind = 'process_notification' AND j.sequence >= ${p(2)}
        AND c.sequence IS NULL
      ORDER BY j.sequence LIMIT 1`;
    this.consumedSql = `UPDATE pn_loops SET unconsumed = unconsumed + ${p(0)},
      oldest_unconsumed_sequence = ${p(1)}, oldest_unconsumed_at = ${p(2)} WHERE session_id = ${p(3)} AND loop_id = ${p(4)}`;
    // The statements above for every loop and every session at once (PostgreSQL only).
    this.dialect = storeDialectOf(dataSource);
    const quiet = this.dialect.batchedCounts(p, LOOP_CHANGE_COLUMNS, consumed, false);
    const notifying = this.dialect.batchedCounts(p, LOOP_CHANGE_COLUMNS, consumed, true);
    if (quiet !== undefined && notifying !== undefined) this.batchedSql = { quiet, notifying };
  }

  /**
   * Applies what `records` (just written, in sequence order, in this transaction) change, and
   * sends `notice` (the batch's commit hint) in the same transaction.
   */
  async apply(manager: EntityManager, records: readonly JournalRecordEntity[], notice?: JournalNotice): Promise<void> {
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
    if (this.batchedSql) return this.applyAtOnce(manager, sessions, [...loops.values()], notice);
    for (const [sessionId, lastSequence] of sessions) await manager.query(this.sessionSql, [lastSequence, sessionId, lastSequence]);
    for (const change of loops.values()) await this.applyToLoop(manager, change);
    // No store takes this path with a hint today (SQLite is one node: NO_COMMIT_HINT); a shared
    // store without the one statement still sends it, never drops it.
    if (notice) await this.dialect.notify(manager, notice.channel, notice.payload);
  }

  // What the per-session statements and applyToLoop do for each, and the hint, in one statement
  // (one round trip, not up to three per loop and one per session).
  private async applyAtOnce(
    manager: EntityManager,
    sessions: ReadonlyMap<string, number>,
    changes: readonly LoopChange[],
    notice: JournalNotice | undefined,
  ): Promise<void> {
    const columns: unknown[][] = LOOP_CHANGE_COLUMNS.map(() => []);
    for (const { sessionId, loopId, appended, consumed, first } of changes) {
      [sessionId, loopId, appended - consumed, consumed > 0, first?.sequence ?? null, first?.createdAt ?? null].forEach((value, i) =>
        columns[i]!.push(value),
      );
    }
    const parameters = [[...sessions.keys()], [...sessions.values()], ...columns];
    if (notice) await manager.query(this.batchedSql!.notifying, [...parameters, notice.channel, notice.payload]);
    else await manager.query(this.batchedSql!.quiet, parameters);
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
