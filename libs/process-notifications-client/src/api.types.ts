/*
 * The wire types of the process notifications REST API (v1), snake_case exactly as sent and
 * received. The closed sets they use are in vocabulary.ts.
 */

import type {
  LifecycleKind,
  LoopEngine,
  LoopState,
  ProblemCode,
  ProblemDisposition,
  ProcessState,
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
  readonly disposition?: ProblemDisposition;
  readonly cause?: StopCause;
  readonly sequence?: number;
  readonly loop_id?: string;
}
