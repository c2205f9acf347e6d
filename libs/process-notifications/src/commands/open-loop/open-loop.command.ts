import { Command } from '@nestjs/cqrs';
import { idOf } from '../../validation/canonical-uuid.decorator.js';
import { normaliseId } from '../../validation/normalise-id.js';
import type { LoopView } from '../../process-notifications.views.js';
import type { LoopEngine } from '../../vocabulary/process-vocabulary.js';

/**
 * Open a loop in an open session.
 * @param sessionId the session, in any case
 * @param loopId the id to use (a canonical UUID); a time-ordered UUID when omitted
 * @param engine only `native` loops take process notifications; `native` when omitted
 */
export class OpenLoopCommand extends Command<LoopView> {
  readonly sessionId: string;
  readonly loopId?: string;

  constructor(
    sessionId: string,
    loopId?: string,
    readonly engine?: LoopEngine,
  ) {
    super();
    this.sessionId = idOf(sessionId, 'session_id');
    this.loopId = normaliseId(loopId);
  }
}
