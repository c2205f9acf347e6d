/*
 * The closed sets the library uses, as the library exports them. Each is defined once, in the
 * contract package (`process-notifications-contract`), which the TypeScript client and the
 * supervisor import too; this module re-exports them under the names the library always had, and
 * defines the one set that is the library's own: the codes of its typed errors.
 */
import type { ProblemCode } from 'process-notifications-contract';

export {
  DISPOSITIONS,
  isProcessState,
  isTerminalPair,
  isTerminalReason,
  JOURNAL_KINDS,
  LIFECYCLE_KINDS,
  LOOP_ENGINES,
  LOOP_FILTERS,
  LOOP_STATES,
  OUTCOME_KINDS,
  PROCESS_STATES,
  SESSION_STATES,
  STOP_CAUSES,
  STOP_REASONS,
  SUCCESS_DISPOSITIONS,
  TERMINAL_PAIRS,
  TERMINAL_REASONS,
  type AttentionCondition,
  type Disposition,
  type JournalKind,
  type LifecycleKind,
  type LoopEngine,
  type LoopFilter,
  type LoopState,
  type OutcomeKind,
  type ProcessState,
  type SessionState,
  type StopCause,
  type SuccessDisposition,
  type TerminalReason,
  type TerminalState,
} from 'process-notifications-contract';

/** The stable `code` of every error the library throws (each `ProcessNotificationsError`): problem codes of the contract. */
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
] as const satisfies readonly ProblemCode[];
export type ErrorCode = (typeof ERROR_CODES)[number];
