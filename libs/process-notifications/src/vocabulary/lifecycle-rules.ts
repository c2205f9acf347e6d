import { SIGNAL_STATES } from 'process-notifications-contract';
import { isTerminalPair, STOP_REASONS, type LifecycleKind, type ProcessState, type TerminalReason } from './process-vocabulary.js';

/** What the shape rules of a lifecycle record look at (spec section 6). */
export interface LifecycleFacts {
  readonly state: ProcessState;
  readonly started: boolean;
  readonly finished: boolean;
  readonly exitCode: boolean;
}

/** What the shape rule of a kind says is wrong: a field it requires, or one it must not carry. */
export type LifecycleShapeFault = { readonly requires: string } | { readonly forbids: string } | undefined;

/** The contract's rules for one lifecycle kind (spec section 6). */
export interface LifecycleRule {
  /** The states and reasons the kind may be published with. */
  tuple(state: ProcessState, reason: TerminalReason | undefined): boolean;
  /** What is wrong with the kind's optional fields, or undefined when they fit. */
  shape(facts: LifecycleFacts): LifecycleShapeFault;
  /** Whether the record may carry a diagnostic. */
  diagnostic(state: ProcessState): boolean;
  /** Whether the record may name the signal that ended the command (`signal`, issue 47). */
  signal(state: ProcessState): boolean;
  /** Whether the kind's rules depend on its state (messages then name it). */
  readonly byState: boolean;
}

const running: LifecycleRule = {
  tuple: (state, reason) => state === 'running' && reason === undefined,
  shape: ({ started, finished, exitCode }) =>
    !started ? { requires: 'process_started_at' } : finished ? { forbids: 'process_finished_at' } : noExitCode(exitCode),
  diagnostic: () => false,
  signal: () => false,
  byState: false,
};

function noExitCode(exitCode: boolean): LifecycleShapeFault {
  return exitCode ? { forbids: 'has_exit_code: true' } : undefined;
}

/**
 * Every lifecycle kind's rules, one entry per kind: a new kind does not compile until it has its
 * tuples, its shape and its diagnostic rule here.
 */
export const LIFECYCLE_RULES: Readonly<Record<LifecycleKind, LifecycleRule>> = {
  started: running,
  backgrounded: running,
  stop_requested: {
    tuple: (state, reason) => (state === 'starting' || state === 'running') && reason !== undefined && STOP_REASONS.includes(reason),
    // "No diagnostic" is already enforced by the diagnostic field itself.
    shape: ({ state, started, finished, exitCode }) => {
      if (state === 'running' && !started) return { requires: 'process_started_at' };
      if (state !== 'running' && started) return { forbids: 'process_started_at' };
      return finished ? { forbids: 'process_finished_at' } : noExitCode(exitCode);
    },
    diagnostic: () => false,
    signal: () => false,
    byState: true,
  },
  completed: {
    tuple: (state, reason) => state !== 'lost_on_restore' && isTerminalPair(state, reason),
    shape: ({ state, started, finished, exitCode }) => {
      if (!finished) return { requires: 'process_finished_at' };
      if (state !== 'failed' && !started) return { requires: 'process_started_at' };
      if (state === 'exited') return exitCode ? undefined : { requires: 'has_exit_code: true' };
      return noExitCode(exitCode);
    },
    diagnostic: (state) => state === 'failed',
    // The ends a signal causes, the supervisor's timeout included.
    signal: (state) => (SIGNAL_STATES as readonly ProcessState[]).includes(state),
    byState: true,
  },
  lost: {
    tuple: (state, reason) => state === 'lost_on_restore' && reason === 'lost_on_restore',
    shape: ({ finished, exitCode }) => (!finished ? { requires: 'process_finished_at' } : noExitCode(exitCode)),
    diagnostic: () => true,
    signal: () => false,
    byState: false,
  },
};

/** The rules of `kind`, or undefined for a value that is not a lifecycle kind. */
export function lifecycleRuleOf(kind: unknown): LifecycleRule | undefined {
  return typeof kind === 'string' && Object.hasOwn(LIFECYCLE_RULES, kind) ? LIFECYCLE_RULES[kind as LifecycleKind] : undefined;
}
