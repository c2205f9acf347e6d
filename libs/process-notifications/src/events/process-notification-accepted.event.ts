import type { PendingProcessNotification } from '../model/pending-process-notification.interface.js';

/** A loop accepted a notification into its pending set (published after the journal commit). */
export class ProcessNotificationAcceptedEvent {
  constructor(readonly notification: PendingProcessNotification) {}
}
