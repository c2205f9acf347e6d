import type { ProcessCompletionNotification as WireNotification } from 'process-notifications-contract';
import type { TerminalReason, TerminalState } from '../vocabulary/process-vocabulary.js';

/**
 * A process completion notification as validated and journaled: the wire's notification (the
 * contract package's `ProcessCompletionNotification`, section 2), the supervisor's snake_case
 * fields in the contract's order, UUIDs lower-cased. The DTO implements it, the journal stores it
 * as JSON, and a loop's pending entry is built from it. Its state and reason are typed one by one
 * (a class cannot implement the wire's union of pairs); validation keeps them a pair.
 */
export interface ProcessCompletionNotification extends Omit<WireNotification, 'state' | 'reason'> {
  readonly state: TerminalState;
  readonly reason: TerminalReason;
}
