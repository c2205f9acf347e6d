/*
 * The closed sets of the process notifications API (v1), spelled out because this package has
 * no dependencies. They are copies of the service's own: a test of the service's repository
 * compares each with the service's definition and fails on any drift.
 */

/** Every process state. `starting` and `running` are never terminal. */
export const PROCESS_STATES = [
  'starting',
  'running',
  'exited',
  'failed',
  'timed_out',
  'interrupted',
  'terminated',
  'killed',
  'lost_on_restore',
] as const;
export type ProcessState = (typeof PROCESS_STATES)[number];

/** Every terminal reason. */
export const TERMINAL_REASONS = [
  'exited',
  'timed_out',
  'interrupted',
  'terminated',
  'killed',
  'runner_shutdown',
  'failed',
  'output_limit',
  'lost_on_restore',
] as const;
export type TerminalReason = (typeof TERMINAL_REASONS)[number];

/** The closed set of terminal state/reason pairs: each terminal state with its reasons. */
export const TERMINAL_PAIRS = {
  exited: ['exited'],
  failed: ['failed'],
  timed_out: ['timed_out'],
  interrupted: ['interrupted'],
  terminated: ['terminated', 'runner_shutdown', 'output_limit'],
  killed: ['killed', 'runner_shutdown', 'output_limit'],
  lost_on_restore: ['lost_on_restore'],
} as const satisfies Partial<Record<ProcessState, readonly TerminalReason[]>>;

/** A terminal state. */
export type TerminalState = keyof typeof TERMINAL_PAIRS;

/** One terminal state/reason pair. */
export type TerminalPair = {
  [S in TerminalState]: { readonly state: S; readonly reason: (typeof TERMINAL_PAIRS)[S][number] };
}[TerminalState];

/** Kinds of lifecycle records. */
export const LIFECYCLE_KINDS = ['started', 'backgrounded', 'completed', 'stop_requested', 'lost'] as const;
export type LifecycleKind = (typeof LIFECYCLE_KINDS)[number];

/** Why a delivery answered `stopped`. */
export const STOP_CAUSES = ['loop_stopped', 'inbox_full', 'misrouted'] as const;
export type StopCause = (typeof STOP_CAUSES)[number];

export const LOOP_ENGINES = ['native', 'foreign'] as const;
export type LoopEngine = (typeof LOOP_ENGINES)[number];

export const LOOP_STATES = ['running', 'stopped'] as const;
export type LoopState = (typeof LOOP_STATES)[number];

/** States of a session: `closed` once closed (its tokens refused, readable with the admin token). */
export const SESSION_STATES = ['open', 'closed'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** The answers of a delivery that succeeded. */
export const SUCCESS_DISPOSITIONS = ['accepted', 'duplicate'] as const;
export type SuccessDisposition = (typeof SUCCESS_DISPOSITIONS)[number];

/** The dispositions a problem document may carry. */
export const PROBLEM_DISPOSITIONS = ['stopped', 'collision'] as const;
export type ProblemDisposition = (typeof PROBLEM_DISPOSITIONS)[number];

/** Every problem `code` the API answers with (spec section 8). */
export const PROBLEM_CODES = [
  'invalid_json',
  'invalid_field',
  'invalid_request_target',
  'unauthorized',
  'forbidden',
  'owner_mismatch',
  'session_not_found',
  'loop_not_found',
  'not_found',
  'method_not_allowed',
  'unsupported_engine',
  'already_exists',
  'loop_limit_reached',
  'session_closed',
  'payload_too_large',
  'unsupported_media_type',
  'idempotency_collision',
  'stream_limit_reached',
  'internal_error',
  'delivery_stopped',
  'journal_unavailable',
  'owner_unavailable',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];
