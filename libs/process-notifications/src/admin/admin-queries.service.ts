import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { PN_CONNECTION } from '../constants.js';
import { JournalWriter } from '../persistence/journal-writer.service.js';
import { SessionLeases } from '../persistence/session-leases.service.js';
import { ProcessOutcomes } from '../persistence/process-outcomes.service.js';
import { CommandNotJournaledError } from '../errors/command-not-journaled.error.js';
import { ValidationError } from '../errors/validation.error.js';
import { CONSUMED_KIND } from '../persistence/journal-record.entity.js';
import { DEFAULT_LOOP_CAPACITY, PROCESS_NOTIFICATIONS_OPTIONS } from '../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../process-notifications-options.interface.js';
import { requireCanonicalUuid } from '../validation/canonical-uuid.decorator.js';
import { LOOP_FILTERS, type LoopEngine, type LoopFilter, type LoopState } from '../vocabulary/process-vocabulary.js';
import type {
  AdminLoopQuery,
  AdminLoopView,
  AdminPage,
  AdminPageRequest,
  AdminSessionView,
  NodeView,
  NotificationLocationView,
} from './admin-views.js';
import { PageCursor } from './page-cursor.js';

/** Items on a page unless asked otherwise, and the most one page may hold. */
export const DEFAULT_ADMIN_PAGE = 100;
export const MAX_ADMIN_PAGE = 1000;
/** Age past which `stale` lists a loop unless asked otherwise, in seconds. */
export const DEFAULT_STALE_SECONDS = 300;

type Row = Record<string, unknown>;

/**
 * The operator's read API across sessions (spec section 12.1): sessions, loops, where a
 * notification went, and the nodes. Everything is read from the database (the counts that
 * `JournalCounters` keeps with the journal, and indexes), never from this node's memory and never
 * by scanning the journal, so every node of a cluster answers alike and a page costs the same
 * however long the journal is.
 */
@Injectable()
export class AdminQueries {
  private readonly capacity: number;
  private readonly p: (index: number) => string;
  private readonly sessionsCursor: PageCursor;
  private readonly loopsCursor: PageCursor;

  constructor(
    private readonly reader: JournalWriter,
    private readonly leases: SessionLeases,
    private readonly outcomes: ProcessOutcomes,
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
    @Inject(PROCESS_NOTIFICATIONS_OPTIONS) options: ProcessNotificationsModuleOptions,
  ) {
    this.capacity = options.loopCapacity ?? DEFAULT_LOOP_CAPACITY;
    // Without a key of the embedder's, one of this process's own: its cursors work on it alone.
    const key = options.cursorSecret === undefined ? randomBytes(32) : Buffer.from(options.cursorSecret);
    this.sessionsCursor = new PageCursor('sessions', 1, key);
    this.loopsCursor = new PageCursor('loops', 2, key);
    this.p = (index) => dataSource.driver.createParameter(`p${index}`, index);
  }

  /** Sessions, newest first, with their loop counts, unconsumed total and last sequence. */
  sessions(request: AdminPageRequest = {}): Promise<AdminPage<AdminSessionView>> {
    const limit = pageLimit(request.limit);
    const after = request.cursor === undefined ? undefined : this.sessionsCursor.decode(request.cursor);
    const p = this.p;
    const parameters: unknown[] = after ? [...after, limit + 1] : [limit + 1];
    const sql = `SELECT s.session_id, s.created_at, s.closed_at, s.last_sequence, COUNT(l.loop_id) AS loops,
        COALESCE(SUM(CASE WHEN l.state = 'running' THEN 1 ELSE 0 END), 0) AS running_loops,
        COALESCE(SUM(l.unconsumed), 0) AS unconsumed
      FROM (
        SELECT session_id, created_at, closed_at, last_sequence FROM pn_sessions
        ${after ? `WHERE (created_at, session_id) < (${p(0)}, ${p(1)})` : ''}
        ORDER BY created_at DESC, session_id DESC LIMIT ${p(parameters.length - 1)}
      ) s LEFT JOIN pn_loops l ON l.session_id = s.session_id
      GROUP BY s.session_id, s.created_at, s.closed_at, s.last_sequence
      ORDER BY s.created_at DESC, s.session_id DESC`;
    return this.page(
      sql,
      parameters,
      limit,
      this.sessionsCursor,
      (row) => [String(row.created_at), String(row.session_id)],
      (row) => ({
        sessionId: String(row.session_id),
        createdAt: String(row.created_at),
        state: row.closed_at === null ? 'open' : 'closed',
        closedAt: row.closed_at === null ? null : String(row.closed_at),
        loops: Number(row.loops),
        runningLoops: Number(row.running_loops),
        unconsumed: Number(row.unconsumed),
        lastSequence: Number(row.last_sequence),
      }),
    );
  }

  /** Loops, newest first, as `query.filter` selects them (see {@link LOOP_FILTERS}). */
  loops(query: AdminLoopQuery = {}): Promise<AdminPage<AdminLoopView>> {
    const limit = pageLimit(query.limit);
    const filter: LoopFilter = query.filter ?? 'all';
    if (!LOOP_FILTERS.includes(filter)) throw new ValidationError('filter', `filter must be one of ${LOOP_FILTERS.join(', ')}`);
    const olderThan = query.olderThanSeconds ?? DEFAULT_STALE_SECONDS;
    if (!Number.isSafeInteger(olderThan) || olderThan < 1) {
      throw new ValidationError('older_than_s', 'older_than_s must be an integer of at least 1');
    }
    const sessionId = query.sessionId === undefined ? undefined : requireCanonicalUuid(query.sessionId, 'session_id');
    const after = query.cursor === undefined ? undefined : this.loopsCursor.decode(query.cursor);

    const conditions: string[] = [];
    const parameters: unknown[] = [];
    const bind = (value: unknown): string => this.p(parameters.push(value) - 1);
    if (sessionId !== undefined) conditions.push(`session_id = ${bind(sessionId)}`);
    // Every filter but `all` lists loops with unconsumed work only (ix_pn_loops_unconsumed).
    if (filter !== 'all') conditions.push('unconsumed > 0');
    if (filter === 'full') conditions.push(`unconsumed >= ${bind(this.capacity)}`);
    if (filter === 'stopped') conditions.push("state = 'stopped'");
    if (filter === 'stale') {
      // Never before 1970: ISO strings compare as times only while they have four-digit years.
      const cutoff = new Date(Math.max(0, Date.now() - olderThan * 1000)).toISOString();
      conditions.push(`oldest_unconsumed_at < ${bind(cutoff)}`);
    }
    if (after) conditions.push(`(created_at, session_id, loop_id) < (${bind(after[0])}, ${bind(after[1])}, ${bind(after[2])})`);
    const sql = `SELECT session_id, loop_id, engine, state, unconsumed, oldest_unconsumed_at, created_at FROM pn_loops
      ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
      ORDER BY created_at DESC, session_id DESC, loop_id DESC LIMIT ${bind(limit + 1)}`;
    return this.page(
      sql,
      parameters,
      limit,
      this.loopsCursor,
      (row) => [String(row.created_at), String(row.session_id), String(row.loop_id)],
      (row) => ({
        sessionId: String(row.session_id),
        loopId: String(row.loop_id),
        engine: row.engine as LoopEngine,
        state: row.state as LoopState,
        capacity: this.capacity,
        unconsumed: Number(row.unconsumed),
        oldestUnconsumedAt: row.oldest_unconsumed_at === null ? null : String(row.oldest_unconsumed_at),
      }),
    );
  }

  /**
   * Every session that journaled a notification under `commandId` (any case), in journal
   * order, with its loop's state and its consumed record; `CommandNotJournaledError` when none.
   */
  async findNotification(commandId: string): Promise<NotificationLocationView[]> {
    const id = requireCanonicalUuid(commandId, 'command_id');
    const rows = await this.reader.read(
      (manager) =>
        manager.query(
          `SELECT j.session_id, j.loop_id, l.state AS loop_state, j.sequence, j.payload, j.created_at, c.sequence AS consumed_sequence
          FROM pn_journal j
          LEFT JOIN pn_loops l ON l.session_id = j.session_id AND l.loop_id = j.loop_id
          LEFT JOIN pn_journal c ON c.session_id = j.session_id AND c.cause_command_id = j.idempotency_id AND c.kind = '${CONSUMED_KIND}'
          WHERE j.idempotency_id = ${this.p(0)} AND j.kind = 'process_notification'
          ORDER BY j.sequence`,
          [id],
        ) as Promise<Row[]>,
    );
    if (rows.length === 0) throw new CommandNotJournaledError(id);
    // Its outcome in each session (section 14): one primary-key read per session that has it.
    const sessions = [...new Set(rows.map((row) => String(row.session_id)))];
    const outcomes = new Map(
      await Promise.all(sessions.map(async (session) => [session, (await this.outcomes.of(session, [id])).get(id) ?? null] as const)),
    );
    return rows.map((row) => {
      // Null once retention dropped it (the record itself stays).
      const payload = JSON.parse(String(row.payload)) as Record<string, string> | null;
      return {
        sessionId: String(row.session_id),
        loopId: String(row.loop_id),
        loopState: (row.loop_state ?? null) as LoopState | null,
        sequence: Number(row.sequence),
        processHandle: payload?.process_handle ?? null,
        state: (payload?.state ?? null) as NotificationLocationView['state'],
        reason: (payload?.reason ?? null) as NotificationLocationView['reason'],
        createdAt: String(row.created_at),
        consumedSequence: row.consumed_sequence === null ? null : Number(row.consumed_sequence),
        outcome: outcomes.get(String(row.session_id)) ?? null,
      };
    });
  }

  /**
   * The nodes serving the database. On SQLite this process alone, owning every session, with no
   * heartbeat. On PostgreSQL every node whose heartbeat row is live, names a lease, or expired
   * within the last day (older rows are of processes long gone), live ones first; of the rows
   * with one URL only the newest (a node restarted at its address replaces its old row).
   */
  async nodes(fallbackUrl = ''): Promise<NodeView[]> {
    if (!this.leases.enabled) {
      const [row] = await this.reader.read((manager) => manager.query('SELECT COUNT(*) AS sessions FROM pn_sessions') as Promise<Row[]>);
      return [
        {
          nodeId: this.leases.nodeId,
          nodeUrl: this.leases.advertisedUrl || fallbackUrl,
          live: true,
          lastHeartbeatAt: null,
          sessions: Number(row?.sessions ?? 0),
        },
      ];
    }
    const rows = await this.reader.read(
      (manager: EntityManager) =>
        manager.query(
          `SELECT n.node_id, n.url, n.expires_at > now() AS live, n.heartbeat_at,
            (SELECT COUNT(*) FROM pn_session_leases l WHERE l.owner_node = n.node_id) AS sessions
          FROM pn_nodes n
          WHERE (n.expires_at > now() - interval '1 day' OR EXISTS (SELECT 1 FROM pn_session_leases l WHERE l.owner_node = n.node_id))
            AND NOT EXISTS (SELECT 1 FROM pn_nodes m WHERE m.url = n.url AND m.heartbeat_at > n.heartbeat_at)
          ORDER BY live DESC, n.heartbeat_at DESC NULLS LAST, n.url`,
        ) as Promise<Row[]>,
    );
    return rows.map((row) => ({
      nodeId: String(row.node_id),
      nodeUrl: String(row.url),
      live: row.live === true,
      lastHeartbeatAt: row.heartbeat_at instanceof Date ? row.heartbeat_at.toISOString() : null,
      sessions: Number(row.sessions),
    }));
  }

  // One page: `limit + 1` rows were asked for, so a next page exists exactly when they came.
  private async page<T>(
    sql: string,
    parameters: unknown[],
    limit: number,
    cursor: PageCursor,
    positionOf: (row: Row) => [string, ...string[]],
    view: (row: Row) => T,
  ): Promise<AdminPage<T>> {
    const rows = await this.reader.read((manager) => manager.query(sql, parameters) as Promise<Row[]>);
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return { items: items.map(view), nextCursor: rows.length > limit && last ? cursor.encode(positionOf(last)) : null };
  }
}

function pageLimit(limit: number = DEFAULT_ADMIN_PAGE): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_ADMIN_PAGE) {
    throw new ValidationError('limit', `limit must be an integer from 1 to ${MAX_ADMIN_PAGE}`);
  }
  return limit;
}
