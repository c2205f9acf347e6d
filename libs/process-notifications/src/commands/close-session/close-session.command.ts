import { Command } from '@nestjs/cqrs';
import { normaliseId } from '../../validation/normalise-id.js';
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
    this.sessionId = normaliseId(sessionId);
  }
}
