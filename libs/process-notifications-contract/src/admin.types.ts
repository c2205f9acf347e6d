/*
 * The admin read API (spec section 12.1), as the server sends it. Every route but `whoami` needs
 * the admin token.
 */
import type { ProcessOutcome } from './api.types.js';
import type {
  LoopEngine,
  LoopFilter,
  LoopState,
  RefusalCode,
  SessionState,
  StopCause,
  TerminalReason,
  TerminalState,
} from './vocabulary.js';

/** Where a list page starts. */
export interface AdminPageQuery {
  /** `next_cursor` of the previous page, as it is. */
  readonly cursor?: string;
  /** 1 to 1000 (default 100). */
  readonly limit?: number;
}

/** Query of `GET /v1/admin/loops`. */
export interface AdminLoopsQuery extends AdminPageQuery {
  /** Default `all`. */
  readonly filter?: LoopFilter;
  /** For `stale`: seconds (at least 1, default 300). */
  readonly older_than_s?: number;
  /** Only this session's loops. */
  readonly session_id?: string;
}

/** A session in `GET /v1/admin/sessions`. */
export interface AdminSession {
  readonly session_id: string;
  readonly created_at: string;
  /** `closed` once the session was closed. */
  readonly state: SessionState;
  /** When it was closed; null while open. */
  readonly closed_at: string | null;
  readonly loops: number;
  readonly running_loops: number;
  readonly unconsumed: number;
  readonly last_sequence: number;
}

/** Answer of `GET /v1/admin/sessions`: newest first; `next_cursor` null on the last page. */
export interface AdminSessionsPage {
  readonly sessions: readonly AdminSession[];
  readonly next_cursor: string | null;
}

/** A loop in `GET /v1/admin/loops`. */
export interface AdminLoop {
  readonly session_id: string;
  readonly loop_id: string;
  readonly engine: LoopEngine;
  readonly state: LoopState;
  readonly capacity: number;
  readonly unconsumed: number;
  readonly oldest_unconsumed_at: string | null;
}

/** Answer of `GET /v1/admin/loops`: newest first; `next_cursor` null on the last page. */
export interface AdminLoopsPage {
  readonly loops: readonly AdminLoop[];
  readonly next_cursor: string | null;
}

/** Where one session journaled a notification (`GET /v1/admin/notifications/:command_id`). */
export interface NotificationLocation {
  readonly session_id: string;
  readonly loop_id: string;
  readonly loop_state: LoopState | null;
  readonly sequence: number;
  /** Null once retention dropped the payload, like `state` and `reason`. */
  readonly process_handle: string | null;
  readonly state: TerminalState | null;
  readonly reason: TerminalReason | null;
  readonly created_at: string;
  readonly consumed_sequence: number | null;
  /** How its process ended (section 14); null until a `completed` or `lost` record names it. */
  readonly outcome: ProcessOutcome | null;
}

/** Answer of `GET /v1/admin/notifications/:command_id`: one entry per session, and the id's refusals. */
export interface NotificationLocations {
  readonly notifications: readonly NotificationLocation[];
  /** Deliveries under this id that were refused (a collision among them), newest first. */
  readonly refusals: readonly Refusal[];
}

/** A node in `GET /v1/admin/nodes`. */
export interface ClusterNode {
  /** The id an `owner_unavailable` problem and a refusal name. */
  readonly node_id: string;
  readonly node_url: string;
  readonly live: boolean;
  /** Null on SQLite. */
  readonly last_heartbeat_at: string | null;
  readonly sessions: number;
}

/** Answer of `GET /v1/admin/nodes`. */
export interface ClusterNodes {
  readonly nodes: readonly ClusterNode[];
}

/** A refusal in `GET /v1/admin/refusals`. */
export interface Refusal {
  readonly at: string;
  readonly code: RefusalCode;
  readonly session_id: string;
  readonly loop_id: string | null;
  /** A completion's; null for a lifecycle record. */
  readonly command_id: string | null;
  /** A lifecycle record's; null for a completion. */
  readonly event_id: string | null;
  readonly cause: StopCause | null;
  /** An `idempotency_collision`: the original's journal sequence; else null. */
  readonly original_sequence: number | null;
  /** An `idempotency_collision`: names (never values) of the fields that differ from the original's; else null. */
  readonly differing_fields: readonly string[] | null;
  /** The node that answered. */
  readonly node_id: string;
}

/** Answer of `GET /v1/admin/refusals`: what the cluster's nodes refused lately, newest first. */
export interface Refusals {
  readonly refusals: readonly Refusal[];
}

/** Answer of `GET /v1/whoami`: `kind` is one of TOKEN_KINDS (test/package/wire-types.spec.ts holds the two together). */
export type Whoami = { readonly kind: 'admin'; readonly session_id: null } | { readonly kind: 'session'; readonly session_id: string };
