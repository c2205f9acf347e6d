/*
 * Every closed set of the library: process states, terminal reasons and their pairs, lifecycle
 * kinds, journal kinds, dispositions, stop causes, loop engines and states, error codes.
 * The one definition the library and the server use: validation, the journal, the errors and
 * the HTTP layer (its OpenAPI schemas too) import it. Packages that cannot import the library
 * keep a copy, held to this one by a drift test: the TypeScript client
 * (`libs/process-notifications-client/src/vocabulary.ts`, `test/package/client-vocabulary.spec.ts`)
 * and the Python client (`vocabulary.py`, `test/package/python-client-vocabulary.int-spec.ts`).
 * The docs are written by hand, and `test/support/contract-vocabulary.ts` from the contract's
 * text on purpose, so that tests do not take their expected answers from this file.
 */

/** Every process state, in the order the contract lists them. */
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

/** Every terminal reason, in the order the contract lists them. */
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

/** The terminal state/reason pairs a completion notification may carry. */
export const TERMINAL_PAIRS: Readonly<Partial<Record<ProcessState, readonly TerminalReason[]>>> = {
  exited: ['exited'],
  failed: ['failed'],
  timed_out: ['timed_out'],
  interrupted: ['interrupted'],
  terminated: ['terminated', 'runner_shutdown', 'output_limit'],
  killed: ['killed', 'runner_shutdown', 'output_limit'],
  lost_on_restore: ['lost_on_restore'],
};

export type TerminalState = keyof typeof TERMINAL_PAIRS;

/** The five kinds of process lifecycle record. */
export const LIFECYCLE_KINDS = ['started', 'backgrounded', 'completed', 'stop_requested', 'lost'] as const;
export type LifecycleKind = (typeof LIFECYCLE_KINDS)[number];

/** The lifecycle kinds that end a run: only they may name their notification's `command_id`. */
export const OUTCOME_KINDS = ['completed', 'lost'] as const satisfies readonly LifecycleKind[];
export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

/** Kinds of journal record: notifications, their consumption, loop stops, lifecycle records. */
export const JOURNAL_KINDS = ['process_notification', 'process_notification_consumed', 'loop_stopped', ...LIFECYCLE_KINDS] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

/** What the owning loop (or the pipeline in front of it) answered for a notification. */
export const DISPOSITIONS = ['accepted', 'duplicate', 'stopped', 'collision'] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

/** The dispositions of a successful delivery. */
export const SUCCESS_DISPOSITIONS = ['accepted', 'duplicate'] as const satisfies readonly Disposition[];
export type SuccessDisposition = (typeof SUCCESS_DISPOSITIONS)[number];

/** Why a loop answered `stopped`. */
export const STOP_CAUSES = ['loop_stopped', 'inbox_full', 'misrouted'] as const;
export type StopCause = (typeof STOP_CAUSES)[number];

/** Engines a loop can run. Only `native` loops take process notifications. */
export const LOOP_ENGINES = ['native', 'foreign'] as const;
export type LoopEngine = (typeof LOOP_ENGINES)[number];

/** States of a loop. */
export const LOOP_STATES = ['running', 'stopped'] as const;
export type LoopState = (typeof LOOP_STATES)[number];

/** States of a session: `closed` once closed (its tokens refused, its journal kept for the admin). */
export const SESSION_STATES = ['open', 'closed'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/**
 * Filters of the admin loop list (spec section 12.1): every loop, those with unconsumed work,
 * those whose next delivery answers `inbox_full`, stopped ones with unconsumed work, and those
 * whose oldest unconsumed notification is older than a given age.
 */
export const LOOP_FILTERS = ['all', 'unconsumed', 'full', 'stopped', 'stale'] as const;
export type LoopFilter = (typeof LOOP_FILTERS)[number];

/** The stable `code` of every error the library throws (each `ProcessNotificationsError`). */
export const ERROR_CODES = [
  'invalid_field',
  'owner_mismatch',
  'session_not_found',
  'loop_not_found',
  'not_found',
  'unsupported_engine',
  'already_exists',
  'loop_limit_reached',
  'session_closed',
  'idempotency_collision',
  'delivery_stopped',
  'journal_unavailable',
  'owner_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Reasons a stop may be requested with. */
export const STOP_REASONS: readonly TerminalReason[] = ['interrupted', 'terminated', 'killed'];

export function isProcessState(value: unknown): value is ProcessState {
  return typeof value === 'string' && (PROCESS_STATES as readonly string[]).includes(value);
}

export function isTerminalReason(value: unknown): value is TerminalReason {
  return typeof value === 'string' && (TERMINAL_REASONS as readonly string[]).includes(value);
}

/** True when `state`/`reason` is one of the terminal pairs of {@link TERMINAL_PAIRS}. */
export function isTerminalPair(state: unknown, reason: unknown): boolean {
  if (typeof state !== 'string' || typeof reason !== 'string') return false;
  if (!Object.prototype.hasOwnProperty.call(TERMINAL_PAIRS, state)) return false;
  return TERMINAL_PAIRS[state as ProcessState]!.includes(reason as TerminalReason);
}
