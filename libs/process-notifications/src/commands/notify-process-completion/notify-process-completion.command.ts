import { Command } from '@nestjs/cqrs';
import { normaliseId } from '../../validation/normalise-id.js';
import type { NotificationDelivery } from './notification-delivery.interface.js';

/**
 * Deliver a process completion notification to its loop, journal first.
 * Resolves on `accepted` or `duplicate`; any other outcome is a typed error.
 * @param sessionId the session the call is made for, any case (held normalised, see `normaliseId`);
 *   the notification's `session_id` must match it
 * @param notification the raw notification (validated by the handler)
 */
export class NotifyProcessCompletionCommand extends Command<NotificationDelivery> {
  readonly sessionId: string;

  constructor(
    sessionId: string,
    readonly notification: unknown,
  ) {
    super();
    this.sessionId = normaliseId(sessionId);
  }
}
