import { Command } from '@nestjs/cqrs';
import { normaliseId } from '../../validation/normalise-id.js';
import type { NotificationConsumption } from './notification-consumption.interface.js';

/**
 * A loop is done with a pending notification: remove it from the set and journal a consumed
 * record whose cause is its command id. Consuming twice is harmless. Ids in any case: the session
 * and loop ids are held normalised (see `normaliseId`), the command id is validated by the handler.
 */
export class ConsumeProcessNotificationCommand extends Command<NotificationConsumption> {
  readonly sessionId: string;
  readonly loopId: string;

  constructor(
    sessionId: string,
    loopId: string,
    readonly commandId: string,
  ) {
    super();
    this.sessionId = normaliseId(sessionId);
    this.loopId = normaliseId(loopId);
  }
}
