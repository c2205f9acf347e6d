import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionLeases } from '../../persistence/leases/session-leases.service.js';
import { AdvertiseNodeUrlCommand } from './advertise-node-url.command.js';

/** Writes this node's URL to its node row ({@link SessionLeases.advertise}). */
@CommandHandler(AdvertiseNodeUrlCommand)
export class AdvertiseNodeUrlHandler implements ICommandHandler<AdvertiseNodeUrlCommand> {
  constructor(private readonly leases: SessionLeases) {}

  execute(command: AdvertiseNodeUrlCommand): Promise<void> {
    return this.leases.advertise(command.url);
  }
}
