import type { TerminalReason, TerminalState } from '../vocabulary/process-vocabulary.js';

/** A notification a loop has accepted and not yet consumed. */
export interface PendingProcessNotification {
  readonly commandId: string;
  readonly sessionId: string;
  readonly loopId: string;
  readonly processHandle: string;
  readonly state: TerminalState;
  readonly reason: TerminalReason;
  /** Journal sequence of the notification's record. */
  readonly sequence: number;
}
