/*
 * The wire types of the admin read API (spec section 12.1), snake_case exactly as sent.
 */
import type { LoopEngine, LoopState, ProcessState, StopCause, TerminalReason } from './api.types.js';

/** Answer of `GET /v1/whoami`: whose token the request carried. */
export type Whoami = { readonly kind: 'admin'; readonly session_id: null } | { readonly kind: 'session'; readonly session_id: string };

/** A page of a list: `limit` 1 to 1000 (default 100), `cursor` from the previous page's `next_cursor`. */
export interface PageQuery {
  readonly limit?: number;
  readonly cursor?: string;
}

/** One session in `GET /v1/admin/sessions`. */
export interface AdminSession {
  readonly session_id: string;
  readonly created_at: string;
  readonly loops: number;
  readonly running_loops: number;
  readonly unconsumed: number;
  /** The session's highest journal sequence, 0 when none. */
  readonly last_sequence: number;
}

/** Answer of `GET /v1/admin/sessions`, newest session first. */
export interface AdminSessionsPage {
  readonly sessions: readonly AdminSession[];
  /** Null on the last page. */
  readonly next_cursor: string | null;
}

/** The filters of `GET /v1/admin/loops`. */
export type AdminLoopFilter = 'all' | 'unconsumed' | 'full' | 'stopped' | 'stale';

/** Query of `GET /v1/admin/loops`. */
export interface AdminLoopsQuery extends PageQuery {
  /** @default 'all' */
  readonly filter?: AdminLoopFilter;
  /** `stale`: oldest unconsumed older than this many seconds. @default 300 */
  readonly older_than_s?: number;
  /** Only this session's loops. */
  readonly session_id?: string;
}

/** One loop in `GET /v1/admin/loops`. */
export interface AdminLoop {
  readonly session_id: string;
  readonly loop_id: string;
  readonly engine: LoopEngine;
  readonly state: LoopState;
  readonly capacity: number;
  /** Its notifications in the journal without a consumed record. */
  readonly unconsumed: number;
  readonly oldest_unconsumed_at: string | null;
}

/** Answer of `GET /v1/admin/loops`, newest loop first. */
export interface AdminLoopsPage {
  readonly loops: readonly AdminLoop[];
  readonly next_cursor: string | null;
}

/** Where one session journaled a command id (`GET /v1/admin/notifications/:command_id`). */
export interface NotificationLocation {
  readonly session_id: string;
  readonly loop_id: string;
  /** Null when the loop is gone. */
  readonly loop_state: LoopState | null;
  readonly sequence: number;
  /** Null, with `state` and `reason`, once retention dropped the payload. */
  readonly process_handle: string | null;
  readonly state: ProcessState | null;
  readonly reason: TerminalReason | null;
  readonly created_at: string;
  /** The consumed record's sequence; null while unconsumed. */
  readonly consumed_sequence: number | null;
}

/** Answer of `GET /v1/admin/notifications/:command_id`. */
export interface NotificationLocations {
  readonly notifications: readonly NotificationLocation[];
}

/** One node in `GET /v1/admin/nodes`. */
export interface NodeStatus {
  readonly node_url: string;
  readonly live: boolean;
  /** Null on SQLite (one node). */
  readonly last_heartbeat_at: string | null;
  /** How many sessions the node owns. */
  readonly sessions: number;
}

/** Answer of `GET /v1/admin/nodes`. */
export interface Nodes {
  readonly nodes: readonly NodeStatus[];
}

/** One refused delivery or lifecycle record (`GET /v1/admin/refusals`). */
export interface Refusal {
  readonly at: string;
  readonly code: string;
  readonly session_id: string | null;
  readonly loop_id: string | null;
  /** A completion's; null for a lifecycle record. */
  readonly command_id: string | null;
  /** A lifecycle record's; null for a completion. */
  readonly event_id: string | null;
  /** The delivery stopped cause, else null. */
  readonly cause: StopCause | null;
}

/** Answer of `GET /v1/admin/refusals`, newest first. */
export interface Refusals {
  readonly refusals: readonly Refusal[];
}
