import { Command } from '@nestjs/cqrs';
import { normaliseId } from '../../validation/normalise-id.js';
import type { NotificationConsumptionResult } from './notification-consumption.interface.js';

/**
 * A loop is done with several notifications at once: one journal transaction for all of them,
 * with an answer per command id (issue 37). `commandIds` is checked by the handler: an array of 1
 * to {@link MAX_CONSUME_BATCH} UUIDs. The session and loop ids in any case, held normalised (see
 * `normaliseId`).
 */
export class ConsumeProcessNotificationsCommand extends Command<NotificationConsumptionResult[]> {
  readonly sessionId: string;
  readonly loopId: string;

  constructor(
    sessionId: string,
    loopId: string,
    readonly commandIds: unknown,
  ) {
    super();
    this.sessionId = normaliseId(sessionId);
    this.loopId = normaliseId(loopId);
  }
}

// The bound is the contract's (section 8); the library exports it from here, as it always did.
export { MAX_CONSUME_BATCH } from 'process-notifications-contract';
