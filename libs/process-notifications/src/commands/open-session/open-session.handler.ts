import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { SessionTokenView } from '../../process-notifications.views.js';
import { Sessions } from '../../sessions/sessions.service.js';
import { OpenSessionCommand } from './open-session.command.js';

/**
 * Opens a session through {@link Sessions.open}, which checks the id, refuses one that exists
 * (`AlreadyExistsError`) and persists the session through the journal writer. A new session
 * belongs to no node yet: no ownership is asked for.
 */
@CommandHandler(OpenSessionCommand)
export class OpenSessionHandler implements ICommandHandler<OpenSessionCommand> {
  constructor(private readonly sessions: Sessions) {}

  async execute(command: OpenSessionCommand): Promise<SessionTokenView> {
    const { session, token } = await this.sessions.open(command.sessionId);
    return { sessionId: session.sessionId, token };
  }
}
