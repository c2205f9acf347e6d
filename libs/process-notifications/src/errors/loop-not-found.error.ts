import { ProcessNotificationsError } from './process-notifications.error.js';

/** The loop does not exist in this session; nothing was journaled. */
export class LoopNotFoundError extends ProcessNotificationsError {
  readonly code = 'loop_not_found';
  override readonly disposition = 'stopped' as const;

  constructor(
    readonly sessionId: string,
    readonly loopId: string,
  ) {
    super(`loop ${loopId} not found in session ${sessionId}`);
  }
}
