import type { TerminalReason, TerminalState } from '../vocabulary/process-vocabulary.js';

/**
 * A process completion notification as validated and journaled: the supervisor's snake_case
 * fields in the contract's order, UUIDs lower-cased. The DTO implements it, the journal stores
 * it as JSON, and a loop's pending entry is built from it.
 */
export interface ProcessCompletionNotification {
  /** The supervisor's idempotency key, allocated before publishing. */
  readonly command_id: string;
  readonly session_id: string;
  readonly loop_id: string;
  /** Opaque handle of the process: 1 to 128 bytes of `A-Z a-z 0-9 - _`. */
  readonly process_handle: string;
  readonly state: TerminalState;
  readonly reason: TerminalReason;
}
