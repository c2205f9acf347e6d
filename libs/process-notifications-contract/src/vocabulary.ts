/*
 * Every closed set of the process notifications API (v1): process states, terminal reasons and
 * their pairs, lifecycle, outcome and journal kinds, the states a signal ends, dispositions, stop causes, loop engines,
 * loop and session states, the events of a loop's stream, token kinds, admin loop filters, refusal codes and problem codes. Defined here
 * once: the library, the server, the TypeScript client, the supervisor and the tests import them;
 * the Python client spells them out and `test/package/python-client-vocabulary.int-spec.ts` holds
 * it to these; `test/docs/contract-vocabulary.int-spec.ts` holds these to docs/contract.md.
 */

/** Every process state, in the order the contract lists them. `starting` and `running` are never terminal. */
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

/** The closed set of terminal state/reason pairs a completion notification may carry: each terminal state with its reasons. */
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

/** The five kinds of process lifecycle record. */
export const LIFECYCLE_KINDS = ['started', 'backgrounded', 'completed', 'stop_requested', 'lost'] as const;
export type LifecycleKind = (typeof LIFECYCLE_KINDS)[number];

/** The lifecycle kinds that end a run: only they may name their notification's `command_id`. */
export const OUTCOME_KINDS = ['completed', 'lost'] as const satisfies readonly LifecycleKind[];
export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

/**
 * The states a `completed` record may name the signal that ended its command in (its `signal`,
 * section 6): the ends a signal causes, a supervisor's timeout included.
 */
export const SIGNAL_STATES = ['interrupted', 'terminated', 'killed', 'timed_out'] as const satisfies readonly ProcessState[];
export type SignalState = (typeof SIGNAL_STATES)[number];

/** Reasons a stop may be requested with (a `stop_requested` record's). */
export const STOP_REASONS: readonly TerminalReason[] = ['interrupted', 'terminated', 'killed'];

/** Kinds of journal record: notifications, their consumption, loop stops, lifecycle records. */
export const JOURNAL_KINDS = ['process_notification', 'process_notification_consumed', 'loop_stopped', ...LIFECYCLE_KINDS] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

/** What the owning loop (or the pipeline in front of it) answered for a notification. */
export const DISPOSITIONS = ['accepted', 'duplicate', 'stopped', 'collision'] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

/** The dispositions of a successful delivery: its answer's `disposition`. */
export const SUCCESS_DISPOSITIONS = ['accepted', 'duplicate'] as const satisfies readonly Disposition[];
export type SuccessDisposition = (typeof SUCCESS_DISPOSITIONS)[number];

/** The dispositions a problem document may carry. */
export const PROBLEM_DISPOSITIONS = ['stopped', 'collision'] as const satisfies readonly Disposition[];
export type ProblemDisposition = (typeof PROBLEM_DISPOSITIONS)[number];

/** Why a delivery answered `stopped` (the `cause` of `delivery_stopped`). */
export const STOP_CAUSES = ['loop_stopped', 'inbox_full', 'misrouted'] as const;
export type StopCause = (typeof STOP_CAUSES)[number];

/** Engines a loop can run. Only `native` loops take process notifications. */
export const LOOP_ENGINES = ['native', 'foreign'] as const;
export type LoopEngine = (typeof LOOP_ENGINES)[number];

/** States of a loop. */
export const LOOP_STATES = ['running', 'stopped'] as const;
export type LoopState = (typeof LOOP_STATES)[number];

/** States of a session: `closed` once closed (its tokens refused, readable with the admin token). */
export const SESSION_STATES = ['open', 'closed'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** The SSE event names of a loop's stream (`GET /v1/sessions/:sid/loops/:lid/events`), one per kind of event. */
export const LOOP_EVENT_TYPES = ['notification', 'outcome', 'consumed'] as const;
export type LoopEventType = (typeof LOOP_EVENT_TYPES)[number];

/**
 * Filters of the admin loop list (section 12.1): every loop, those with unconsumed work, those
 * whose next delivery answers `inbox_full`, stopped ones with unconsumed work, and those whose
 * oldest unconsumed notification is older than a given age.
 */
export const LOOP_FILTERS = ['all', 'unconsumed', 'full', 'stopped', 'stale'] as const;
export type LoopFilter = (typeof LOOP_FILTERS)[number];

/**
 * The conditions of a loop that needs an operator, each one of {@link LOOP_FILTERS}: full (its
 * next delivery answers `inbox_full`), stopped with unconsumed work, stale. The console's "Needs
 * attention" and the `pn_loops_needing_attention` gauge count loops by them.
 */
export const ATTENTION_CONDITIONS = ['full', 'stopped', 'stale'] as const satisfies readonly LoopFilter[];
export type AttentionCondition = (typeof ATTENTION_CONDITIONS)[number];

/**
 * Whether a node of `GET /v1/admin/nodes` is alive: `live` while its heartbeat has not expired
 * (its `live` is true), `dead` once it has (a killed or frozen process, whose sessions the next
 * request takes over).
 */
export const NODE_LIVENESS = ['live', 'dead'] as const;
export type NodeLiveness = (typeof NODE_LIVENESS)[number];

/**
 * Why a delivery's disposition was `stopped`, as the `pn_notifications_stopped_total` metric
 * counts it: the causes of `delivery_stopped` ({@link STOP_CAUSES}), and the two refusals the
 * contract also answers `stopped` for, by their problem code.
 */
export const STOPPED_DELIVERY_CAUSES = [...STOP_CAUSES, 'loop_not_found', 'unsupported_engine'] as const;
export type StoppedDeliveryCause = (typeof STOPPED_DELIVERY_CAUSES)[number];

/** Who a bearer token is (`GET /v1/whoami`, section 12.1): the admin, or one session. */
export const TOKEN_KINDS = ['admin', 'session'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** Every problem `code` the API answers with (section 8). */
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

/** The codes a refusal is listed with in the admin refusals (section 12.1): the refused writes an operator looks into. */
export const REFUSAL_CODES = [
  'idempotency_collision',
  'delivery_stopped',
  'owner_mismatch',
  'loop_not_found',
  'unsupported_engine',
] as const satisfies readonly ProblemCode[];
export type RefusalCode = (typeof REFUSAL_CODES)[number];

/** True when `value` is one of {@link PROCESS_STATES}. */
export function isProcessState(value: unknown): value is ProcessState {
  return typeof value === 'string' && (PROCESS_STATES as readonly string[]).includes(value);
}

/** True when `value` is one of {@link TERMINAL_REASONS}. */
export function isTerminalReason(value: unknown): value is TerminalReason {
  return typeof value === 'string' && (TERMINAL_REASONS as readonly string[]).includes(value);
}

/** True when `state`/`reason` is one of the terminal pairs of {@link TERMINAL_PAIRS}. */
export function isTerminalPair(state: unknown, reason: unknown): boolean {
  if (typeof state !== 'string' || typeof reason !== 'string') return false;
  if (!Object.hasOwn(TERMINAL_PAIRS, state)) return false;
  return (TERMINAL_PAIRS[state as TerminalState] as readonly string[]).includes(reason);
}
