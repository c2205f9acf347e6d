import { Command } from '@nestjs/cqrs';
import { idOf } from '../../validation/canonical-uuid.decorator.js';
import type { LoopView } from '../../process-notifications.views.js';

/**
 * Stop a loop durably: later deliveries answer `stopped` (`loop_stopped`); what it holds stays
 * pending and consumable. Stopping a stopped loop answers it as it is.
 * @param sessionId the session, in any case
 * @param loopId the loop, in any case
 */
export class StopLoopCommand extends Command<LoopView> {
  readonly sessionId: string;
  readonly loopId: string;

  constructor(sessionId: string, loopId: string) {
    super();
    this.sessionId = idOf(sessionId, 'session_id');
    this.loopId = idOf(loopId, 'loop_id');
  }
}
