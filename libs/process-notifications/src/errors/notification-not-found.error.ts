import { ProcessNotificationsError } from './process-notifications.error.js';

/** No notification with this command id was journaled for the loop: it never had it to consume. */
export class NotificationNotFoundError extends ProcessNotificationsError {
  readonly code = 'not_found';

  constructor(
    readonly loopId: string,
    readonly commandId: string,
  ) {
    super(`no notification ${commandId} was journaled for loop ${loopId}`);
  }
}
