import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { Loops } from '../../loops/loops.service.js';
import { loopView, type LoopView } from '../../process-notifications.views.js';
import { OpenLoopCommand } from './open-loop.command.js';

/**
 * Opens a loop on the session's owner: takes the open session over
 * ({@link SessionOwnership.ownOpen}), then {@link Loops.open} checks the id and the engine, the
 * per-session limit (`LoopLimitError`) and an existing id (`AlreadyExistsError`) in the journal
 * writer's transaction.
 */
@CommandHandler(OpenLoopCommand)
export class OpenLoopHandler implements ICommandHandler<OpenLoopCommand> {
  constructor(
    private readonly ownership: SessionOwnership,
    private readonly loops: Loops,
  ) {}

  async execute(command: OpenLoopCommand): Promise<LoopView> {
    const session = await this.ownership.ownOpen(command.sessionId);
    return loopView(await this.loops.open(session, command.loopId, command.engine));
  }
}
