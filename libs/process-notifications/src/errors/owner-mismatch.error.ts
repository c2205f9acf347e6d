import { ProcessNotificationsError } from './process-notifications.error.js';

/** The record names a session other than the one the call is made for. */
export class OwnerMismatchError extends ProcessNotificationsError {
  readonly code = 'owner_mismatch';

  constructor(
    readonly wanted: string,
    readonly got: string,
  ) {
    super(`session_id "${got}" does not match the session of this call ("${wanted}")`);
  }
}
