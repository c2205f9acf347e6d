import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { consumedRecordOf } from '../journal/consumed-record.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { managerOf } from '../transaction/store-transaction.js';
import { PostgresNodeStatements } from '../dialects/postgres-node-statements.js';

type Row = Record<string, unknown>;

/** A session with its loop counts, as the admin's session list reads it. */
export interface AdminSessionRow {
  readonly sessionId: string;
  readonly createdAt: string;
  readonly closedAt: string | null;
  readonly lastSequence: number;
  readonly loops: number;
  readonly runningLoops: number;
  readonly unconsumed: number;
}

/** A loop with its unconsumed count, as the admin's loop list reads it. */
export interface AdminLoopRow {
  readonly sessionId: string;
  readonly loopId: string;
  readonly engine: string;
  readonly state: string;
  readonly unconsumed: number;
  readonly oldestUnconsumedAt: string | null;
  readonly createdAt: string;
}

/** Which loops {@link AdminReads.loops} lists; every condition given must hold. */
export interface AdminLoopSelection {
  readonly sessionId?: string;
  /** Only loops with unconsumed work (reads ix_pn_loops_unconsumed). */
  readonly withUnconsumed?: boolean;
  readonly unconsumedAtLeast?: number;
  readonly stoppedOnly?: boolean;
  /** Only loops whose oldest unconsumed notification was journaled before this time (ISO 8601). */
  readonly oldestUnconsumedBefore?: string;
}

/** A notification journaled under a command id, with its loop's state and its consumed record. */
export interface AdminNotificationRow {
  readonly sessionId: string;
  readonly loopId: string;
  readonly loopState: string | null;
  readonly sequence: number;
  /** The payload as journaled (JSON), null once retention dropped it. */
  readonly payload: string | null;
  readonly createdAt: string;
  readonly consumedSequence: number | null;
}

/** A node of a cluster, from its heartbeat row. */
export interface AdminNodeRow {
  readonly nodeId: string;
  readonly url: string;
  readonly live: boolean;
  readonly heartbeatAt: string | null;
  readonly sessions: number;
}

/**
 * The statements of the operator's read API (spec section 12.1), run as journal reads: keyset
 * pages newest first (`take` rows after the position `after`), counts kept with the journal, and
 * indexed lookups. The paging, the cursors and the validation are `AdminQueries`'.
 */
@Injectable()
export class AdminReads {
  private readonly p: (index: number) => string;
  private readonly cluster = new PostgresNodeStatements();

  constructor(
    private readonly reader: JournalWriter,
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
  ) {
    this.p = (index) => dataSource.driver.createParameter(`p${index}`, index);
  }

  /**
   * Up to `take` sessions, newest first, after the position `[createdAt, sessionId]`. A closed
   * session's loops keep their state in their rows, but none of them runs: it has no running loops.
   */
  async sessions(take: number, after?: readonly [string, string]): Promise<AdminSessionRow[]> {
    const p = this.p;
    const parameters: unknown[] = after ? [...after, take] : [take];
    const sql = `SELECT s.session_id, s.created_at, s.closed_at, s.last_sequence, COUNT(l.loop_id) AS loops,
        COALESCE(SUM(CASE WHEN l.state = 'running' AND s.closed_at IS NULL THEN 1 ELSE 0 END), 0) AS running_loops,
        COALESCE(SUM(l.unconsumed), 0) AS unconsumed
      FROM (
        SELECT session_id, created_at, closed_at, last_sequence FROM pn_sessions
        ${after ? `WHERE (created_at, session_id) < (${p(0)}, ${p(1)})` : ''}
        ORDER BY created_at DESC, session_id DESC LIMIT ${p(parameters.length - 1)}
      ) s LEFT JOIN pn_loops l ON l.session_id = s.session_id
      GROUP BY s.session_id, s.created_at, s.closed_at, s.last_sequence
      ORDER BY s.created_at DESC, s.session_id DESC`;
    const rows = await this.query(sql, parameters);
    return rows.map((row) => ({
      sessionId: String(row.session_id),
      createdAt: String(row.created_at),
      closedAt: row.closed_at === null ? null : String(row.closed_at),
      lastSequence: Number(row.last_sequence),
      loops: Number(row.loops),
      runningLoops: Number(row.running_loops),
      unconsumed: Number(row.unconsumed),
    }));
  }

  /** Up to `take` loops as `selection` selects them, newest first, after `[createdAt, sessionId, loopId]`. */
  async loops(selection: AdminLoopSelection, take: number, after?: readonly [string, string, string]): Promise<AdminLoopRow[]> {
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    const bind = (value: unknown): string => this.p(parameters.push(value) - 1);
    if (selection.sessionId !== undefined) conditions.push(`session_id = ${bind(selection.sessionId)}`);
    if (selection.withUnconsumed) conditions.push('unconsumed > 0');
    if (selection.unconsumedAtLeast !== undefined) conditions.push(`unconsumed >= ${bind(selection.unconsumedAtLeast)}`);
    if (selection.stoppedOnly) conditions.push("state = 'stopped'");
    if (selection.oldestUnconsumedBefore !== undefined) conditions.push(`oldest_unconsumed_at < ${bind(selection.oldestUnconsumedBefore)}`);
    if (after) conditions.push(`(created_at, session_id, loop_id) < (${bind(after[0])}, ${bind(after[1])}, ${bind(after[2])})`);
    const sql = `SELECT session_id, loop_id, engine, state, unconsumed, oldest_unconsumed_at, created_at FROM pn_loops
      ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
      ORDER BY created_at DESC, session_id DESC, loop_id DESC LIMIT ${bind(take)}`;
    const rows = await this.query(sql, parameters);
    return rows.map((row) => ({
      sessionId: String(row.session_id),
      loopId: String(row.loop_id),
      engine: String(row.engine),
      state: String(row.state),
      unconsumed: Number(row.unconsumed),
      oldestUnconsumedAt: row.oldest_unconsumed_at === null ? null : String(row.oldest_unconsumed_at),
      createdAt: String(row.created_at),
    }));
  }

  /**
   * How many loops are full (unconsumed at least `capacity`), stopped with unconsumed work, and
   * stale (oldest unconsumed journaled before `staleBefore`, ISO 8601): the loops filters' counts
   * in one statement over the loops with unconsumed work (ix_pn_loops_unconsumed).
   */
  async attentionCounts(capacity: number, staleBefore: string): Promise<{ full: number; stopped: number; stale: number }> {
    const p = this.p;
    const [row] = await this.query(
      `SELECT COALESCE(SUM(CASE WHEN unconsumed >= ${p(0)} THEN 1 ELSE 0 END), 0) AS full_loops,
        COALESCE(SUM(CASE WHEN state = 'stopped' THEN 1 ELSE 0 END), 0) AS stopped_loops,
        COALESCE(SUM(CASE WHEN oldest_unconsumed_at < ${p(1)} THEN 1 ELSE 0 END), 0) AS stale_loops
      FROM pn_loops WHERE unconsumed > 0`,
      [capacity, staleBefore],
    );
    return { full: Number(row?.full_loops ?? 0), stopped: Number(row?.stopped_loops ?? 0), stale: Number(row?.stale_loops ?? 0) };
  }

  /** Every notification journaled under `commandId` (lower case), in any session, in journal order. */
  async notifications(commandId: string): Promise<AdminNotificationRow[]> {
    const rows = await this.query(
      `SELECT j.session_id, j.loop_id, l.state AS loop_state, j.sequence, j.payload, j.created_at, c.sequence AS consumed_sequence
      FROM pn_journal j
      LEFT JOIN pn_loops l ON l.session_id = j.session_id AND l.loop_id = j.loop_id
      LEFT JOIN pn_journal c ON ${consumedRecordOf('c', 'j')}
      WHERE j.idempotency_id = ${this.p(0)} AND j.kind = 'process_notification'
      ORDER BY j.sequence`,
      [commandId],
    );
    return rows.map((row) => ({
      sessionId: String(row.session_id),
      loopId: String(row.loop_id),
      loopState: row.loop_state === null || row.loop_state === undefined ? null : String(row.loop_state),
      sequence: Number(row.sequence),
      payload: row.payload === null ? null : String(row.payload),
      createdAt: String(row.created_at),
      consumedSequence: row.consumed_sequence === null ? null : Number(row.consumed_sequence),
    }));
  }

  /** How many sessions the database holds, open or closed. */
  async sessionCount(): Promise<number> {
    const [row] = await this.query('SELECT COUNT(*) AS sessions FROM pn_sessions');
    return Number(row?.sessions ?? 0);
  }

  /**
   * The nodes of a cluster (PostgreSQL only): every node whose heartbeat row is live, names a
   * lease, or expired within the last day, live ones first; of the rows with one URL only the
   * newest (a node restarted at its address replaces its old row).
   */
  async nodes(): Promise<AdminNodeRow[]> {
    const rows = await this.reader.read((store) => this.cluster.nodes(managerOf(store)));
    return rows.map((row) => ({
      nodeId: String(row.node_id),
      url: String(row.url),
      live: row.live === true,
      heartbeatAt: row.heartbeat_at instanceof Date ? row.heartbeat_at.toISOString() : null,
      sessions: Number(row.sessions),
    }));
  }

  private query(sql: string, parameters?: unknown[]): Promise<Row[]> {
    return this.reader.read((store) => managerOf(store).query(sql, parameters) as Promise<Row[]>);
  }
}
