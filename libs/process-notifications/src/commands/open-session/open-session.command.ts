import { Command } from '@nestjs/cqrs';
import { normaliseId } from '../../validation/normalise-id.js';
import type { SessionTokenView } from '../../process-notifications.views.js';

/**
 * Open a session with a new bearer token, shown once (only its hash is stored).
 * @param sessionId the id to use (a canonical UUID); a time-ordered UUID when omitted
 */
export class OpenSessionCommand extends Command<SessionTokenView> {
  readonly sessionId?: string;

  constructor(sessionId?: string) {
    super();
    this.sessionId = normaliseId(sessionId);
  }
}
