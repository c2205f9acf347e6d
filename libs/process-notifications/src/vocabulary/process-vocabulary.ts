/*
 * The closed vocabulary of process states, terminal reasons and lifecycle kinds.
 * This file is the only copy: validation, the journal and the docs all read from here.
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
