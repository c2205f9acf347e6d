import type { DataSource, EntityManager } from 'typeorm';
import { consumedRecordOf } from '../journal/consumed-record.js';
import { storeDialectOf } from '../dialects/store-dialects.js';
import type { StoreDialect } from '../dialects/store-dialect.js';
import { OUTCOME_KINDS } from '../../vocabulary/process-vocabulary.js';
import {
  streamRow,
  tailRanges,
  type LoopStreamPage,
  type LoopStreamRange,
  type LoopStreamRangesPage,
  type LoopStreamRow,
  type Row,
  type SessionLoopStreamPage,
} from './loop-stream-row.js';

export type {
  LoopStreamOutcome,
  LoopStreamPage,
  LoopStreamRange,
  LoopStreamRangesPage,
  LoopStreamRow,
  SessionLoopStreamPage,
} from './loop-stream-row.js';

/** The most ranges one statement reads (the store's bounds on parameters and compound selects). */
export const MAX_LOOP_STREAM_RANGES = 64;

/**
 * How close to the journal's last record a tail read starts for it to walk the table in sequence
 * order rather than its sessions' index ({@link LoopStreamRows.tailPage}).
 */
export const TAIL_WALK_RECORDS = 1_000;

/** Where a loop's stream starts when the client names no position, read with the loop's row. */
export interface LoopStreamStart {
  /** The loop's oldest notification without a consumed record (its unconsumed work starts there). */
  readonly oldestUnconsumed: number | null;
  /** The session's highest journal sequence. */
  readonly lastSequence: number;
}

const OUTCOME_LIST = OUTCOME_KINDS.map((kind) => `'${kind}'`).join(', ');

/**
 * The SQL of a loop's event stream (issue 37): one statement reads one loop's records after a
 * sequence, in order, over ix_pn_journal_loop_sequence (never another loop's records), with
 * what each becomes joined in: a notification not consumed yet, with its outcome if that was
 * journaled before it; a `completed` or `lost` record that is the outcome of a notification of
 * this loop journaled before it; a consumed record. Everything else the loop's range holds
 * (other lifecycle kinds, a notification consumed by now, a later record naming an outcome
 * already set, a stop record) is skipped, and `last` moves past it.
 */
export class LoopStreamRows {
  private readonly pageSql: string;
  private readonly sessionPageSql: string;
  private readonly startSql: string;
  private readonly tailSql = new Map<string, string>();
  private readonly lastSql = 'SELECT max(sequence) AS last FROM pn_journal';
  private readonly parameter: (index: number) => string;
  private readonly select: (source: string, columns?: string) => string;
  private readonly dialect: StoreDialect;

  /** @param tailWalkRecords see {@link TAIL_WALK_RECORDS} (tests force either read with it) */
  constructor(
    dataSource: DataSource,
    private readonly tailWalkRecords = TAIL_WALK_RECORDS,
  ) {
    const p = (this.parameter = (index: number) => dataSource.driver.createParameter(`p${index}`, index));
    // The command id a completed or lost record names, from its payload (null once dropped).
    const dialect = (this.dialect = storeDialectOf(dataSource));
    const named = dialect.jsonText('j.payload', 'command_id');
    // Each joined record is one index probe per row (probeJoin): a read costs its page, never the
    // session (on PostgreSQL a plain join, planned on a fresh table, read the whole session's
    // records once per row: 3 million rows touched for a 256-row page, loop-reads-postgres spec).
    this.select = (
      source,
      columns = '',
    ) => `SELECT ${columns}j.sequence, j.loop_id, j.kind, j.idempotency_id, j.cause_command_id, j.payload,
        o.command_id AS o_command_id, o.sequence AS o_sequence, o.event_id AS o_event_id, o.kind AS o_kind,
        o.has_exit_code AS o_has_exit_code, o.exit_code AS o_exit_code, o.diagnostic AS o_diagnostic,
        o.signal AS o_signal, o.process_started_at AS o_started, o.process_finished_at AS o_finished,
        n.sequence AS n_sequence, n.loop_id AS n_loop_id, n.payload AS n_payload, c.sequence AS c_sequence
      FROM ${source} j
      ${dialect.probeJoin(
        'pn_process_outcomes',
        'o',
        `o.session_id = j.session_id AND o.command_id = (CASE
        WHEN j.kind = 'process_notification' THEN j.idempotency_id
        WHEN j.kind IN (${OUTCOME_LIST}) THEN ${named} END)`,
      )}
      ${dialect.probeJoin(
        'pn_journal',
        'n',
        `j.kind IN (${OUTCOME_LIST}) AND n.session_id = j.session_id
        AND n.idempotency_id = o.command_id AND n.kind = 'process_notification'`,
      )}
      ${dialect.probeJoin('pn_journal', 'c', `j.kind = 'process_notification' AND ${consumedRecordOf('c', 'j')}`)}`;
    const select = this.select('pn_journal');
    this.pageSql = `${select}
      WHERE j.session_id = ${p(0)} AND j.loop_id = ${p(1)} AND j.sequence > ${p(2)}
      ORDER BY j.sequence LIMIT ${p(3)}`;
    // Every loop's records of the session over ix_pn_journal_session_sequence: one read serves
    // all of a session's streams at once (a record without a loop is nothing to any of them).
    this.sessionPageSql = `${select}
      WHERE j.session_id = ${p(0)} AND j.sequence > ${p(1)} AND j.loop_id IS NOT NULL
      ORDER BY j.sequence LIMIT ${p(2)}`;
    this.startSql = `SELECT l.oldest_unconsumed_sequence, s.last_sequence FROM pn_loops l
      JOIN pn_sessions s ON s.session_id = l.session_id WHERE l.session_id = ${p(0)} AND l.loop_id = ${p(1)}`;
  }

  /** Where the loop's unconsumed work starts, or undefined when the session has no such loop. */
  async start(manager: EntityManager, sessionId: string, loopId: string): Promise<LoopStreamStart | undefined> {
    const [row] = (await manager.query(this.startSql, [sessionId, loopId])) as Row[];
    if (!row) return undefined;
    const oldest = row.oldest_unconsumed_sequence;
    return { oldestUnconsumed: oldest === null ? null : Number(oldest), lastSequence: Number(row.last_sequence) };
  }

  /** Up to `limit` of the loop's records after `after`, as stream rows (see the class). */
  async page(manager: EntityManager, sessionId: string, loopId: string, after: number, limit: number): Promise<LoopStreamPage> {
    const rows = (await manager.query(this.pageSql, [sessionId, loopId, after, limit])) as Row[];
    const out: LoopStreamRow[] = [];
    for (const row of rows) {
      const item = streamRow(row, loopId);
      if (item) out.push(item);
    }
    return { rows: out, last: rows.length > 0 ? Number(rows.at(-1)!.sequence) : after, more: rows.length === limit };
  }

  /**
   * Up to `limit` records of every loop of the session after `after`, each as its own loop's
   * {@link page} makes it: the rows of one loop here are that loop's page over the same range.
   */
  async sessionPage(manager: EntityManager, sessionId: string, after: number, limit: number): Promise<SessionLoopStreamPage> {
    const rows = (await manager.query(this.sessionPageSql, [sessionId, after, limit])) as Row[];
    const out: Array<{ loopId: string; row: LoopStreamRow }> = [];
    for (const row of rows) {
      const loopId = String(row.loop_id);
      const item = streamRow(row, loopId);
      if (item) out.push({ loopId, row: item });
    }
    return { rows: out, last: rows.length > 0 ? Number(rows.at(-1)!.sequence) : after, more: rows.length === limit };
  }

  /**
   * Up to `limit` records of several ranges (at most {@link MAX_LOOP_STREAM_RANGES}, one per
   * session) in one statement, each row as its range's own read makes it: a loop range's rows are
   * that loop's {@link page}, a session range's are its {@link sessionPage}, over the same range.
   * Each range is read over its own index from its own position (a union of one index range per
   * range), so a quiet session costs one index probe and a lone loop never reads its neighbours.
   * `last` is per range, never the read's highest sequence: sequences are only committed in order
   * within a session (its owner's writer), so another session's higher record, committed by
   * another node, says nothing of what this session may still commit below it.
   */
  async rangesPage(manager: EntityManager, ranges: readonly LoopStreamRange[], limit: number): Promise<LoopStreamRangesPage> {
    if (ranges.length === 0) return { rows: [], last: [], more: false };
    if (ranges.length > MAX_LOOP_STREAM_RANGES) throw new RangeError(`at most ${MAX_LOOP_STREAM_RANGES} ranges per read`);
    const parameters: Array<string | number> = [];
    const next = (value: string | number): string => (parameters.push(value), this.parameter(parameters.length - 1));
    const branches = ranges.map((range, index) => {
      // Parameters taken in the order they appear: they are positional on SQLite.
      const session = `session_id = ${next(range.sessionId)}`;
      const loop = range.loopId === null ? 'loop_id IS NOT NULL' : `loop_id = ${next(range.loopId)}`;
      const where = `${session} AND ${loop} AND sequence > ${next(range.after)}`;
      return `SELECT * FROM (SELECT ${index} AS pn_range, pn_journal.* FROM pn_journal WHERE ${where}
        ORDER BY sequence LIMIT ${next(limit)}) r${index}`;
    });
    const union = `(${branches.join(' UNION ALL ')} ORDER BY sequence LIMIT ${next(limit)})`;
    const sql = this.select(union, 'j.pn_range, ');
    const rows = (await manager.query(`${sql} ORDER BY j.sequence`, parameters)) as Row[];
    const last = ranges.map((range) => range.after);
    const out: Array<{ range: number; loopId: string; row: LoopStreamRow }> = [];
    for (const row of rows) {
      const range = Number(row.pn_range);
      last[range] = Number(row.sequence);
      const loopId = String(row.loop_id);
      const item = streamRow(row, loopId);
      if (item) out.push({ range, loopId, row: item });
    }
    return { rows: out, last, more: rows.length === limit };
  }

  /**
   * {@link rangesPage} on a store that one connection writes in sequence order (SQLite), as one
   * walk of the ranges' sessions' records from the lowest range's position (see `tailRanges`),
   * not one read per range merged: of the journal's records in sequence order when that position
   * is within {@link TAIL_WALK_RECORDS} of the last, else over the sessions' index.
   */
  async tailPage(manager: EntityManager, ranges: readonly LoopStreamRange[], limit: number): Promise<LoopStreamRangesPage> {
    if (ranges.length === 0) return { rows: [], last: [], more: false };
    let from = Number.POSITIVE_INFINITY;
    for (const { after } of ranges) from = Math.min(from, after);
    const sessions = [...new Set(ranges.map(({ sessionId }) => sessionId))];
    // Near the journal's end (a read after a commit) its records are walked in sequence order,
    // other sessions' skipped as they come: sixteen sessions' index ranges merged and sorted took
    // 1.3 to 1.45 times as long for a 48-record commit (per-statement timing in the server). From
    // further back such a walk would read every other session's records since, so the sessions'
    // index is taken. The same statement either way but for the index it may use.
    const [{ last }] = (await manager.query(this.lastSql)) as [{ last: number | string | null }];
    const walk = Number(last ?? 0) - from <= this.tailWalkRecords;
    const rows = (await manager.query(this.tailSqlFor(sessions.length, walk), [from, ...sessions, limit])) as Row[];
    return tailRanges(rows, ranges, limit);
  }

  // The journal's tail from one position, of `count` sessions, in sequence order (parameters in
  // the order they appear: they are positional on SQLite), walked or over the sessions' index.
  private tailSqlFor(count: number, walk: boolean): string {
    const key = `${count}:${walk}`;
    let sql = this.tailSql.get(key);
    if (sql === undefined) {
      const p = this.parameter;
      const sessions = Array.from({ length: count }, (_, index) => p(index + 1)).join(', ');
      const session = walk ? this.dialect.unindexed('session_id') : 'session_id';
      const source = `(SELECT * FROM pn_journal WHERE sequence > ${p(0)} AND ${session} IN (${sessions})
        AND loop_id IS NOT NULL ORDER BY sequence LIMIT ${p(count + 1)})`;
      sql = `${this.select(source, 'j.session_id, ')} ORDER BY j.sequence`;
      this.tailSql.set(key, sql);
    }
    return sql;
  }
}
