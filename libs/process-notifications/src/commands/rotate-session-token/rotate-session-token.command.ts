import { Command } from '@nestjs/cqrs';
import { idOf } from '../../validation/canonical-uuid.decorator.js';
import type { SessionTokenView } from '../../process-notifications.views.js';

/**
 * Give a session a new bearer token, shown once: from the commit on the old token opens nothing,
 * on any node sharing the database. Refused with `SessionClosedError` when the session is closed.
 * @param sessionId the session, in any case
 */
export class RotateSessionTokenCommand extends Command<SessionTokenView> {
  readonly sessionId: string;

  constructor(sessionId: string) {
    super();
    this.sessionId = idOf(sessionId, 'session_id');
  }
}
