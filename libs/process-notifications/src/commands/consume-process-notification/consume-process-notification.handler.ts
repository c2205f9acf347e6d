import { CommandHandler, EventBus, type ICommandHandler } from '@nestjs/cqrs';
import { NotificationNotFoundError } from '../../errors/notification-not-found.error.js';
import { ProcessNotificationConsumedEvent } from '../../events/process-notification-consumed.event.js';
import { consumedRecord } from '../../journal/consumed-record.js';
import { JournalWriter } from '../../persistence/journal-writer.service.js';
import { Loops } from '../../loops/loops.service.js';
import { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { requireCanonicalUuid } from '../../validation/canonical-uuid.decorator.js';
import { ConsumeProcessNotificationCommand } from './consume-process-notification.command.js';
import type { NotificationConsumption } from './notification-consumption.interface.js';

@CommandHandler(ConsumeProcessNotificationCommand)
export class ConsumeProcessNotificationHandler implements ICommandHandler<ConsumeProcessNotificationCommand> {
  constructor(
    private readonly loops: Loops,
    private readonly ownership: SessionOwnership,
    private readonly journal: JournalWriter,
    private readonly eventBus: EventBus,
  ) {}

  async execute(command: ConsumeProcessNotificationCommand): Promise<NotificationConsumption> {
    const commandId = requireCanonicalUuid(command.commandId, 'command_id');
    const session = await this.ownership.ownOpen(command.sessionId);
    const loop = this.loops.require(session, command.loopId);

    if (loop.has(commandId)) {
      const { record, appended } = await this.journal.append(consumedRecord(loop.sessionId, loop.loopId, commandId));
      // Removed only after the consumed record committed, so a crash before it leaves it pending.
      loop.remove(commandId);
      if (appended) {
        this.eventBus.publish(new ProcessNotificationConsumedEvent(loop.sessionId, loop.loopId, commandId, record.sequence));
      }
      return { consumed: appended, sequence: record.sequence };
    }
    const prior = await this.journal.consumptionOf(loop.sessionId, commandId);
    if (prior && prior.loopId === loop.loopId) return { consumed: false, sequence: prior.sequence };
    throw new NotificationNotFoundError(loop.loopId, commandId);
  }
}
