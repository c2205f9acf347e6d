import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionOwnership } from '../../cluster/session-ownership.service.js';
import type { SessionTokenView } from '../../process-notifications.views.js';
import { Sessions } from '../../sessions/sessions.service.js';
import { RotateSessionTokenCommand } from './rotate-session-token.command.js';

/**
 * Rotates a session's token on its owner: takes the open session over (`SessionNotFoundError`,
 * `SessionClosedError`, `OwnerUnavailableError` from {@link SessionOwnership.ownOpen}), then
 * {@link Sessions.rotateToken} commits the new token's hash.
 */
@CommandHandler(RotateSessionTokenCommand)
export class RotateSessionTokenHandler implements ICommandHandler<RotateSessionTokenCommand> {
  constructor(
    private readonly ownership: SessionOwnership,
    private readonly sessions: Sessions,
  ) {}

  async execute(command: RotateSessionTokenCommand): Promise<SessionTokenView> {
    const session = await this.ownership.ownOpen(command.sessionId);
    const token = await this.sessions.rotateToken(session);
    return { sessionId: session.sessionId, token };
  }
}
