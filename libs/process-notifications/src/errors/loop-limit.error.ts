import { ProcessNotificationsError } from './process-notifications.error.js';

/** The session already has as many loops as it may open (`maxLoopsPerSession`). */
export class LoopLimitError extends ProcessNotificationsError {
  readonly code = 'loop_limit_reached';

  constructor(
    readonly sessionId: string,
    readonly limit: number,
  ) {
    super(`session ${sessionId} already has ${limit} loops, the most it may open`);
  }
}
