import { Command } from '@nestjs/cqrs';
import type { NotificationConsumption } from './notification-consumption.interface.js';

/**
 * A loop is done with a pending notification: remove it from the set and journal a consumed
 * record whose cause is its command id. Consuming twice is harmless.
 */
export class ConsumeProcessNotificationCommand extends Command<NotificationConsumption> {
  constructor(
    readonly sessionId: string,
    readonly loopId: string,
    readonly commandId: string,
  ) {
    super();
  }
}
