import { ProcessNotificationsError } from './process-notifications.error.js';

/** Input failed the closed schema; `field` names the first failing field (snake_case). */
export class ValidationError extends ProcessNotificationsError {
  readonly code = 'invalid_field';

  constructor(
    readonly field: string,
    detail?: string,
  ) {
    super(detail ?? `invalid value for field "${field}"`);
  }
}
