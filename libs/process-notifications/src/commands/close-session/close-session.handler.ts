import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionOwnership } from '../../cluster/session-ownership.service.js';
import type { ClosedSessionView } from '../../process-notifications.views.js';
import { Sessions } from '../../sessions/sessions.service.js';
import { CloseSessionCommand } from './close-session.command.js';

/**
 * Closes a session on its owner: takes it over, closed or not ({@link SessionOwnership.own}: a
 * second close is answered, not refused), then {@link Sessions.close} commits the close.
 */
@CommandHandler(CloseSessionCommand)
export class CloseSessionHandler implements ICommandHandler<CloseSessionCommand> {
  constructor(
    private readonly ownership: SessionOwnership,
    private readonly sessions: Sessions,
  ) {}

  async execute(command: CloseSessionCommand): Promise<ClosedSessionView> {
    const session = await this.ownership.own(command.sessionId);
    const closedAt = await this.sessions.close(session);
    return { sessionId: session.sessionId, state: 'closed', closedAt };
  }
}
