import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionLeases } from '../../persistence/leases/session-leases.service.js';
import { ReleaseSessionsCommand } from './release-sessions.command.js';

/** Gives up this node's session leases ({@link SessionLeases.release}). */
@CommandHandler(ReleaseSessionsCommand)
export class ReleaseSessionsHandler implements ICommandHandler<ReleaseSessionsCommand> {
  constructor(private readonly leases: SessionLeases) {}

  execute(): Promise<void> {
    return this.leases.release();
  }
}
