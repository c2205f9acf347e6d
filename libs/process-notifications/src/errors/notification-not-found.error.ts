import { ProcessNotificationsError } from './process-notifications.error.js';

/** The loop never accepted a notification with this command id. */
export class NotificationNotFoundError extends ProcessNotificationsError {
  readonly code = 'not_found';

  constructor(
    readonly loopId: string,
    readonly commandId: string,
  ) {
    super(`loop ${loopId} never accepted notification ${commandId}`);
  }
}
