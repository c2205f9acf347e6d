/*
 * The wire types of the process notifications REST API (v1), snake_case exactly as sent and
 * received. This package has no dependencies, so the closed vocabulary is spelled out here.
 */

/** Every process state. `starting` and `running` are never terminal. */
export type ProcessState =
  'starting' | 'running' | 'exited' | 'failed' | 'timed_out' | 'interrupted' | 'terminated' | 'killed' | 'lost_on_restore';

/** Every terminal reason. */
export type TerminalReason =
  'exited' | 'timed_out' | 'interrupted' | 'terminated' | 'killed' | 'runner_shutdown' | 'failed' | 'output_limit' | 'lost_on_restore';

/** The closed set of terminal state/reason pairs. */
export type TerminalPair =
  | { readonly state: 'exited'; readonly reason: 'exited' }
  | { readonly state: 'failed'; readonly reason: 'failed' }
  | { readonly state: 'timed_out'; readonly reason: 'timed_out' }
  | { readonly state: 'interrupted'; readonly reason: 'interrupted' }
  | { readonly state: 'terminated'; readonly reason: 'terminated' | 'runner_shutdown' | 'output_limit' }
  | { readonly state: 'killed'; readonly reason: 'killed' | 'runner_shutdown' | 'output_limit' }
  | { readonly state: 'lost_on_restore'; readonly reason: 'lost_on_restore' };

/** A terminal state. */
export type TerminalState = TerminalPair['state'];

/** Kinds of lifecycle records. */
export type LifecycleKind = 'started' | 'backgrounded' | 'completed' | 'stop_requested' | 'lost';

/** Why a delivery answered `stopped`. */
export type StopCause = 'loop_stopped' | 'inbox_full' | 'misrouted';

export type LoopEngine = 'native' | 'foreign';
export type LoopState = 'running' | 'stopped';

/** Body of `POST /v1/sessions` (optional). */
export interface CreateSessionRequest {
  readonly session_id?: string;
}

/** Answer of `POST /v1/sessions`; the token is shown only once. */
export interface SessionCreated {
  readonly session_id: string;
  readonly token: string;
}

/** A loop as the API shows it. */
export interface Loop {
  readonly loop_id: string;
  readonly engine: LoopEngine;
  readonly state: LoopState;
  readonly capacity: number;
  readonly pending: number;
}

/** Answer of `GET /v1/sessions/:sid`. */
export interface Session {
  readonly session_id: string;
  readonly loops: readonly Loop[];
}

/** Body of `POST /v1/sessions/:sid/loops` (optional); the engine defaults to native. */
export interface OpenLoopRequest {
  readonly engine?: LoopEngine;
  readonly loop_id?: string;
}

/** The process completion notification: the six fields, nothing else. */
export type ProcessCompletionNotification = {
  readonly command_id: string;
  readonly session_id: string;
  readonly loop_id: string;
  readonly process_handle: string;
} & TerminalPair;

/** Answer of `POST .../process-completions`: 202 accepted, 200 duplicate. */
export interface CompletionDelivery {
  readonly disposition: 'accepted' | 'duplicate';
  readonly command_id: string;
  readonly sequence: number;
  /** False when an identical earlier call already journaled it. */
  readonly appended: boolean;
}

/** A process lifecycle record (spec section 6). Timestamps are RFC 3339. */
export interface LifecycleRecord {
  readonly event_id: string;
  readonly kind: LifecycleKind;
  readonly session_id: string;
  readonly loop_id: string;
  readonly process_handle: string;
  readonly origin_execution_id: string;
  readonly state: ProcessState;
  readonly process_created_at: string;
  readonly process_started_at?: string;
  readonly process_finished_at?: string;
  /** Only on `completed` with state `failed`, and on `lost`; at most 512 bytes. */
  readonly diagnostic?: string;
  readonly has_exit_code?: boolean;
  readonly exit_code?: number;
  readonly reason?: TerminalReason;
  /**
   * Only on `completed` and `lost`: the `command_id` of the completion notification of the same
   * run, so the loop sees this record as that notification's `outcome`. Never equal to `event_id`.
   */
  readonly command_id?: string;
}

/** Answer of `POST .../process-lifecycle`: 201 new, 200 identical retry. */
export interface LifecyclePublication {
  readonly event_id: string;
  readonly sequence: number;
  readonly appended: boolean;
}

/** A notification in a loop's pending set. */
export type PendingNotification = ProcessCompletionNotification & { readonly sequence: number };

/** Answer of `GET .../process-notifications`: the pending set in acceptance order. */
export interface PendingNotifications {
  readonly notifications: readonly PendingNotification[];
}

/** Answer of `POST .../consume`. */
export interface Consumption {
  /** False when it had already been consumed. */
  readonly consumed: boolean;
  readonly sequence: number;
}

/** One journal record. */
export interface JournalRecord {
  readonly sequence: number;
  readonly kind: string;
  readonly loop_id: string | null;
  readonly idempotency_id: string;
  readonly cause_command_id: string | null;
  readonly created_at: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** Answer of `GET .../journal`. */
export interface JournalPage {
  readonly records: readonly JournalRecord[];
  /** Pass as `after` to read the next page. */
  readonly next_after: number;
}

/** Query of `GET .../journal`. */
export interface JournalQuery {
  /** Records after this sequence (default 0). */
  readonly after?: number;
  /** At most this many (default 100, at most 1000). */
  readonly limit?: number;
}

/** Answer of `GET /healthz`. */
export interface Health {
  readonly status: 'ok';
}

/** An RFC 9457 problem document as the API sends it. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ProblemCode | string;
  readonly field?: string;
  readonly disposition?: 'stopped' | 'collision';
  readonly cause?: StopCause;
  readonly sequence?: number;
  readonly loop_id?: string;
}

/** The problem codes of the contract (sections 8 and 9). */
export type ProblemCode =
  | 'invalid_json'
  | 'invalid_field'
  | 'unauthorized'
  | 'forbidden'
  | 'owner_mismatch'
  | 'session_not_found'
  | 'loop_not_found'
  | 'not_found'
  | 'unsupported_engine'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'idempotency_collision'
  | 'delivery_stopped'
  | 'journal_unavailable'
  | 'owner_unavailable';
