import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { Loops } from '../../loops/loops.service.js';
import { loopView, type LoopView } from '../../process-notifications.views.js';
import { StopLoopCommand } from './stop-loop.command.js';

/**
 * Stops a loop on the session's owner: takes the open session over
 * ({@link SessionOwnership.ownOpen}), then {@link Loops.stop} finds the loop
 * (`LoopNotFoundError`) and journals its `loop_stopped` record.
 */
@CommandHandler(StopLoopCommand)
export class StopLoopHandler implements ICommandHandler<StopLoopCommand> {
  constructor(
    private readonly ownership: SessionOwnership,
    private readonly loops: Loops,
  ) {}

  async execute(command: StopLoopCommand): Promise<LoopView> {
    const session = await this.ownership.ownOpen(command.sessionId);
    return loopView(await this.loops.stop(session, command.loopId));
  }
}
