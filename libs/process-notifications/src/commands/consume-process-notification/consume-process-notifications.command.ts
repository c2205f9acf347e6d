import { Command } from '@nestjs/cqrs';
import type { NotificationConsumptionResult } from './notification-consumption.interface.js';

/**
 * A loop is done with several notifications at once: one journal transaction for all of them,
 * with an answer per command id (issue 37). `commandIds` is checked by the handler: an array of 1
 * to {@link MAX_CONSUME_BATCH} UUIDs.
 */
export class ConsumeProcessNotificationsCommand extends Command<NotificationConsumptionResult[]> {
  constructor(
    readonly sessionId: string,
    readonly loopId: string,
    readonly commandIds: unknown,
  ) {
    super();
  }
}

// The bound is the contract's (section 8); the library exports it from here, as it always did.
export { MAX_CONSUME_BATCH } from 'process-notifications-contract';
