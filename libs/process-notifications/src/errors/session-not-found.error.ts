import { ProcessNotificationsError } from './process-notifications.error.js';

/** No session with this id is open. */
export class SessionNotFoundError extends ProcessNotificationsError {
  readonly code = 'session_not_found';

  constructor(readonly sessionId: string) {
    super(`session ${sessionId} not found`);
  }
}
