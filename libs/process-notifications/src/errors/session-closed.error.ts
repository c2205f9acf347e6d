import { ProcessNotificationsError } from './process-notifications.error.js';

/**
 * The session was closed: it is kept for reading, and takes no more writes (deliveries, lifecycle
 * records, loops, stops, consumes, token rotations). Final: a retry gets the same answer.
 */
export class SessionClosedError extends ProcessNotificationsError {
  readonly code = 'session_closed';

  constructor(
    readonly sessionId: string,
    readonly closedAt: string | null,
  ) {
    super(`session ${sessionId} is closed${closedAt ? ` (since ${closedAt})` : ''}`);
  }
}
