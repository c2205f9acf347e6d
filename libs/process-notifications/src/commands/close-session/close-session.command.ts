import { Command } from '@nestjs/cqrs';
import { idOf } from '../../validation/canonical-uuid.decorator.js';
import type { ClosedSessionView } from '../../process-notifications.views.js';

/**
 * Close a session: from the commit on no token of it opens anything and every write to it is
 * refused with `SessionClosedError`; it stays readable. Idempotent: closing a closed session
 * answers when it was closed.
 * @param sessionId the session, in any case
 */
export class CloseSessionCommand extends Command<ClosedSessionView> {
  readonly sessionId: string;

  constructor(sessionId: string) {
    super();
    this.sessionId = idOf(sessionId, 'session_id');
  }
}
