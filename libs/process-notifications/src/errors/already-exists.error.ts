import { ProcessNotificationsError } from './process-notifications.error.js';

/** A session or loop with this id already exists. */
export class AlreadyExistsError extends ProcessNotificationsError {
  readonly code = 'already_exists';

  constructor(
    readonly resource: 'session' | 'loop',
    readonly id: string,
  ) {
    super(`${resource} ${id} already exists`);
  }
}
