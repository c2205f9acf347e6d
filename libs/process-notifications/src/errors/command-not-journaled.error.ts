import { ProcessNotificationsError } from './process-notifications.error.js';

/** No session journaled a notification with this command id (admin lookup). */
export class CommandNotJournaledError extends ProcessNotificationsError {
  readonly code = 'not_found';

  constructor(readonly commandId: string) {
    super(`no session journaled a notification with command id ${commandId}`);
  }
}
