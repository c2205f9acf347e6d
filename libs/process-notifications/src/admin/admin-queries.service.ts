import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AdminReads } from '../persistence/admin-reads/admin-reads.service.js';
import { SessionLeases } from '../persistence/leases/session-leases.service.js';
import { Topology } from '../topology/topology.js';
import { ProcessOutcomes } from '../persistence/outcomes/process-outcomes.service.js';
import { CommandNotJournaledError } from '../errors/command-not-journaled.error.js';
import { ValidationError } from '../errors/validation.error.js';
import { DEFAULT_LOOP_CAPACITY, PROCESS_NOTIFICATIONS_OPTIONS } from '../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../process-notifications-options.interface.js';
import { requireCanonicalUuid } from '../validation/canonical-uuid.decorator.js';
import {
  LOOP_FILTERS,
  type AttentionCondition,
  type LoopEngine,
  type LoopFilter,
  type LoopState,
} from '../vocabulary/process-vocabulary.js';
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
  private readonly sessionsCursor: PageCursor;
  private readonly loopsCursor: PageCursor;

  constructor(
    private readonly reads: AdminReads,
    private readonly leases: SessionLeases,
    private readonly topology: Topology,
    private readonly outcomes: ProcessOutcomes,
    @Inject(PROCESS_NOTIFICATIONS_OPTIONS) options: ProcessNotificationsModuleOptions,
  ) {
    this.capacity = options.loopCapacity ?? DEFAULT_LOOP_CAPACITY;
    // Without a key of the embedder's, one of this process's own: its cursors work on it alone.
    const key = options.cursorSecret === undefined ? randomBytes(32) : Buffer.from(options.cursorSecret);
    this.sessionsCursor = new PageCursor('sessions', 1, key);
    this.loopsCursor = new PageCursor('loops', 2, key);
  }

  /** Sessions, newest first, with their loop counts, unconsumed total and last sequence. */
  sessions(request: AdminPageRequest = {}): Promise<AdminPage<AdminSessionView>> {
    const limit = pageLimit(request.limit);
    const after = request.cursor === undefined ? undefined : this.sessionsCursor.decode(request.cursor);
    // `limit + 1` rows: a next page exists exactly when they came.
    return page(
      this.reads.sessions(limit + 1, after && [after[0], after[1]!]),
      limit,
      this.sessionsCursor,
      (row) => [row.createdAt, row.sessionId],
      (row) => ({
        sessionId: row.sessionId,
        createdAt: row.createdAt,
        state: row.closedAt === null ? 'open' : 'closed',
        closedAt: row.closedAt,
        loops: row.loops,
        runningLoops: row.runningLoops,
        unconsumed: row.unconsumed,
        lastSequence: row.lastSequence,
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
    const rows = this.reads.loops(
      {
        sessionId,
        // Every filter but `all` lists loops with unconsumed work only.
        withUnconsumed: filter !== 'all',
        unconsumedAtLeast: filter === 'full' ? this.capacity : undefined,
        stoppedOnly: filter === 'stopped',
        // Never before 1970: ISO strings compare as times only while they have four-digit years.
        oldestUnconsumedBefore: filter === 'stale' ? new Date(Math.max(0, Date.now() - olderThan * 1000)).toISOString() : undefined,
      },
      limit + 1,
      after && [after[0], after[1]!, after[2]!],
    );
    return page(
      rows,
      limit,
      this.loopsCursor,
      (row) => [row.createdAt, row.sessionId, row.loopId],
      (row) => ({
        sessionId: row.sessionId,
        loopId: row.loopId,
        engine: row.engine as LoopEngine,
        state: row.state as LoopState,
        capacity: this.capacity,
        unconsumed: row.unconsumed,
        oldestUnconsumedAt: row.oldestUnconsumedAt,
      }),
    );
  }

  /**
   * Every session that journaled a notification under `commandId` (any case), in journal
   * order, with its loop's state and its consumed record; `CommandNotJournaledError` when none.
   */
  async findNotification(commandId: string): Promise<NotificationLocationView[]> {
    const id = requireCanonicalUuid(commandId, 'command_id');
    const rows = await this.reads.notifications(id);
    if (rows.length === 0) throw new CommandNotJournaledError(id);
    // Its outcome in each session (section 14): one primary-key read per session that has it.
    const sessions = [...new Set(rows.map((row) => row.sessionId))];
    const outcomes = new Map(
      await Promise.all(sessions.map(async (session) => [session, (await this.outcomes.of(session, [id])).get(id) ?? null] as const)),
    );
    return rows.map((row) => {
      // Null once retention dropped it (the record itself stays).
      const payload = row.payload === null ? null : (JSON.parse(row.payload) as Record<string, string> | null);
      return {
        sessionId: row.sessionId,
        loopId: row.loopId,
        loopState: row.loopState as LoopState | null,
        sequence: row.sequence,
        processHandle: payload?.process_handle ?? null,
        state: (payload?.state ?? null) as NotificationLocationView['state'],
        reason: (payload?.reason ?? null) as NotificationLocationView['reason'],
        createdAt: row.createdAt,
        consumedSequence: row.consumedSequence,
        outcome: outcomes.get(row.sessionId) ?? null,
      };
    });
  }

  /**
   * How many loops need an operator, by condition (the loops filters `full`, `stopped`, `stale`
   * with `older_than_s` = `olderThanS`): the same loops the filters list, counted in one read.
   */
  async attentionCounts(olderThanS = DEFAULT_STALE_SECONDS): Promise<Record<AttentionCondition, number>> {
    const staleBefore = new Date(Math.max(0, Date.now() - olderThanS * 1000)).toISOString();
    return this.reads.attentionCounts(this.capacity, staleBefore);
  }

  /**
   * The nodes serving the database. On SQLite this process alone, owning every session, with no
   * heartbeat. On PostgreSQL every node whose heartbeat row is live, names a lease, or expired
   * within the last day (older rows are of processes long gone), live ones first; of the rows
   * with one URL only the newest (a node restarted at its address replaces its old row).
   */
  async nodes(fallbackUrl = ''): Promise<NodeView[]> {
    const alone = await this.topology.onOneNode(async (): Promise<NodeView[]> => [
      {
        nodeId: this.leases.nodeId,
        nodeUrl: this.leases.advertisedUrl || fallbackUrl,
        live: true,
        lastHeartbeatAt: null,
        sessions: await this.reads.sessionCount(),
      },
    ]);
    if (alone) return alone;
    const rows = await this.reads.nodes();
    return rows.map((row) => ({
      nodeId: row.nodeId,
      nodeUrl: row.url,
      live: row.live,
      lastHeartbeatAt: row.heartbeatAt,
      sessions: row.sessions,
    }));
  }
}

// One page of `limit + 1` rows asked for: a next page exists exactly when they came.
async function page<R, T>(
  read: Promise<readonly R[]>,
  limit: number,
  cursor: PageCursor,
  positionOf: (row: R) => [string, ...string[]],
  view: (row: R) => T,
): Promise<AdminPage<T>> {
  const rows = await read;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items: items.map(view), nextCursor: rows.length > limit && last ? cursor.encode(positionOf(last)) : null };
}

function pageLimit(limit: number = DEFAULT_ADMIN_PAGE): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_ADMIN_PAGE) {
    throw new ValidationError('limit', `limit must be an integer from 1 to ${MAX_ADMIN_PAGE}`);
  }
  return limit;
}
