import type { ProcessOutcome } from '../model/process-outcome.interface.js';
import type { LoopEngine, LoopFilter, LoopState, SessionState, TerminalReason, TerminalState } from '../vocabulary/process-vocabulary.js';

/** One page of an admin list, newest first; `nextCursor` is null on the last page. */
export interface AdminPage<T> {
  readonly items: T[];
  readonly nextCursor: string | null;
}

/** Where a page starts: the previous page's `nextCursor` (opaque), and how many items at most. */
export interface AdminPageRequest {
  readonly cursor?: string;
  /** 1 to 1000 @default 100 */
  readonly limit?: number;
}

/** Which loops {@link AdminQueries.loops} lists. */
export interface AdminLoopQuery extends AdminPageRequest {
  /** @default 'all' */
  readonly filter?: LoopFilter;
  /** For `stale`: the oldest unconsumed notification is older than this many seconds (at least 1) @default 300 */
  readonly olderThanSeconds?: number;
  /** Only this session's loops (an unknown one lists nothing). */
  readonly sessionId?: string;
}

/** A session as the admin list shows it. */
export interface AdminSessionView {
  readonly sessionId: string;
  readonly createdAt: string;
  /** `closed` once the session was closed. */
  readonly state: SessionState;
  /** When it was closed, null while open. */
  readonly closedAt: string | null;
  readonly loops: number;
  readonly runningLoops: number;
  /** The sum of its loops' unconsumed notifications. */
  readonly unconsumed: number;
  /** Its highest journal sequence, 0 when none. */
  readonly lastSequence: number;
}

/** A loop as the admin list shows it. */
export interface AdminLoopView {
  readonly sessionId: string;
  readonly loopId: string;
  readonly engine: LoopEngine;
  readonly state: LoopState;
  readonly capacity: number;
  /** Its notifications in the journal without a consumed record. */
  readonly unconsumed: number;
  /** `createdAt` of its oldest unconsumed notification, null when none. */
  readonly oldestUnconsumedAt: string | null;
}

/** Where one session journaled a notification, and what became of it. */
export interface NotificationLocationView {
  readonly sessionId: string;
  readonly loopId: string;
  /** The loop's state now; null if the loop row is gone. */
  readonly loopState: LoopState | null;
  readonly sequence: number;
  /** From the payload; null once retention dropped it. */
  readonly processHandle: string | null;
  readonly state: TerminalState | null;
  readonly reason: TerminalReason | null;
  readonly createdAt: string;
  /** The consumed record's sequence, null while unconsumed. */
  readonly consumedSequence: number | null;
  /** How its process ended (section 14), null until a `completed` or `lost` record names it. */
  readonly outcome: ProcessOutcome | null;
}

/** A server process serving the database. */
export interface NodeView {
  /** The id an `owner_unavailable` answer names. */
  readonly nodeId: string;
  readonly nodeUrl: string;
  readonly live: boolean;
  /** Its last heartbeat (RFC 3339); null on SQLite, where there is no heartbeat. */
  readonly lastHeartbeatAt: string | null;
  /** Sessions whose lease names it (on SQLite: every session). */
  readonly sessions: number;
}
