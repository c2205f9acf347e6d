/*
 * The wire types of the process notifications REST API (v1), snake_case exactly as sent and
 * received. The closed sets they use are in vocabulary.ts. The server's answer DTOs implement
 * them, so an answer that drifts from its type does not compile.
 */

import type {
  JournalKind,
  LifecycleKind,
  LoopEngine,
  LoopState,
  OutcomeKind,
  ProblemCode,
  ProblemDisposition,
  ProcessState,
  SessionState,
  StopCause,
  SuccessDisposition,
  TerminalPair,
  TerminalReason,
} from './vocabulary.js';

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
  /** `closed` once closed: readable with the admin token, no more writes. */
  readonly state: SessionState;
  /** When it was closed; null while open. */
  readonly closed_at: string | null;
  readonly loops: readonly Loop[];
}

/** Answer of `POST /v1/sessions/:sid/token`: the session's new token, shown once. */
export interface SessionToken {
  readonly session_id: string;
  readonly token: string;
}

/** Answer of `POST /v1/sessions/:sid/close`: the same `closed_at` on every close. */
export interface ClosedSession {
  readonly session_id: string;
  readonly state: 'closed';
  readonly closed_at: string;
}

/** Body of `POST /v1/sessions/:sid/loops` (optional); the engine defaults to native. */
export interface OpenLoopRequest {
  readonly engine?: LoopEngine;
  readonly loop_id?: string;
}

/** The process completion notification (section 2): the six fields, nothing else. */
export type ProcessCompletionNotification = {
  /** The supervisor's idempotency key, allocated before publishing. */
  readonly command_id: string;
  readonly session_id: string;
  readonly loop_id: string;
  /** Opaque handle of the process: 1 to 128 bytes of `A-Z a-z 0-9 - _`. */
  readonly process_handle: string;
} & TerminalPair;

/** Answer of `POST .../process-completions`: 202 accepted, 200 duplicate. */
export interface CompletionDelivery {
  readonly disposition: SuccessDisposition;
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
  /**
   * Only on `completed` with state `interrupted`, `terminated`, `killed` or `timed_out`: the name
   * of the POSIX signal that ended the command (`SIGSEGV`), matching `PROCESS_SIGNAL_PATTERN`.
   */
  readonly signal?: string;
}

/** Answer of `POST .../process-lifecycle`: 201 new, 200 identical retry. */
export interface LifecyclePublication {
  readonly event_id: string;
  readonly sequence: number;
  readonly appended: boolean;
}

/**
 * How a notification's process ended (spec section 14): from the first `completed` or `lost`
 * lifecycle record of the session that names its `command_id`. Absent fields are `null`.
 */
export interface ProcessOutcome {
  /** The lifecycle record's `event_id`. */
  readonly event_id: string;
  readonly kind: OutcomeKind;
  readonly has_exit_code: boolean;
  readonly exit_code: number | null;
  readonly diagnostic: string | null;
  /** The signal that ended the command (`SIGSEGV`), as the record named it; `null` when it named none. */
  readonly signal: string | null;
  readonly process_started_at: string | null;
  readonly process_finished_at: string | null;
}

/** A notification in a loop's pending set, with its journal sequence and its outcome once known. */
export type PendingNotification = ProcessCompletionNotification & {
  readonly sequence: number;
  /** `null` until a `completed` or `lost` record of the session names this `command_id`. */
  readonly outcome: ProcessOutcome | null;
};

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

/**
 * One event of a loop's stream, `GET /v1/sessions/:sid/loops/:lid/events` (issue 37); `id` is
 * the journal sequence of the record it comes from.
 * - `notification`: a notification of the loop, not consumed when the server read it, as the
 *   pending view shows it, with its outcome if that was journaled before it;
 * - `outcome`: the same entry again with its outcome, journaled after the notification
 *   (`notification.sequence` stays the notification's);
 * - `consumed`: a notification of the loop was consumed (`sequence` is the consumed record's).
 */
export type LoopEvent =
  | { readonly id: number; readonly type: 'notification'; readonly notification: PendingNotification }
  | { readonly id: number; readonly type: 'outcome'; readonly notification: PendingNotification }
  | { readonly id: number; readonly type: 'consumed'; readonly consumed: { readonly command_id: string; readonly sequence: number } };

/** One command id's answer of a batch consume (`POST .../process-notifications/consume`). */
export type ConsumeResult =
  | { readonly command_id: string; readonly consumed: boolean; readonly sequence: number }
  | { readonly command_id: string; readonly code: 'not_found' };

/** Answer of the batch consume: one result per command id, in the order sent. */
export interface ConsumeResults {
  readonly results: readonly ConsumeResult[];
}

/** What every journal record carries, whatever its kind. */
interface JournalRecordBase<K extends string, P> {
  readonly sequence: number;
  readonly kind: K;
  readonly loop_id: string | null;
  readonly idempotency_id: string;
  readonly cause_command_id: string | null;
  readonly created_at: string;
  /** The canonical payload; `null` once retention (`PN_RETENTION_DAYS`) dropped it. */
  readonly payload: P | null;
}

/** The payload of a consumed record: which notification, of which loop. */
export interface ConsumedPayload {
  readonly command_id: string;
  readonly loop_id: string;
}

/** The payload of a loop's stop record: what it held when it stopped. */
export interface LoopStoppedPayload {
  readonly loop_id: string;
  /** Command ids pending when the loop stopped. */
  readonly pending: readonly string[];
}

/**
 * One journal record, typed by `kind`: switch on `kind` and `payload` has that kind's type
 * (or `null`, once retention dropped it).
 */
export type JournalRecord =
  | JournalRecordBase<'process_notification', ProcessCompletionNotification>
  | JournalRecordBase<'process_notification_consumed', ConsumedPayload>
  | JournalRecordBase<'loop_stopped', LoopStoppedPayload>
  | { [K in LifecycleKind]: JournalRecordBase<K, LifecycleRecord & { readonly kind: K }> }[LifecycleKind];

/** The journal record of one kind. */
export type JournalRecordOf<K extends JournalKind> = Extract<JournalRecord, { readonly kind: K }>;

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

/**
 * One notification's answer in a batch delivery (`POST .../process-completions/batch`): what the
 * single route (`POST .../process-completions`) would have answered it, its status, the headers
 * of that answer that concern it (`Retry-After`, `Idempotent-Replayed`, lower-case names) and its
 * body (the delivery, or the problem document).
 */
export interface CompletionDeliveryResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: CompletionDelivery | Problem;
}

/** Answer of the batch delivery: one result per notification, in the order sent. */
export interface CompletionDeliveryResults {
  readonly results: readonly CompletionDeliveryResult[];
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
  readonly disposition?: ProblemDisposition;
  readonly cause?: StopCause;
  readonly sequence?: number;
  readonly loop_id?: string;
  /**
   * On `journal_unavailable`, `true` when the write was under way and may have committed after
   * all (retry the same request to learn which); absent when nothing was written or dispatched.
   */
  readonly may_have_committed?: boolean;
}
