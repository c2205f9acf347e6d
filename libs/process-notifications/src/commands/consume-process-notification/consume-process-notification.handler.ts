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

    if (loop.has(commandId)) return this.consumeJournaled(loop.sessionId, loop.loopId, commandId, () => loop.remove(commandId));
    const prior = await this.journal.consumptionOf(loop.sessionId, commandId);
    if (prior && prior.loopId === loop.loopId) return { consumed: false, sequence: prior.sequence };
    // Journaled for this loop but not in its set: refused as inbox_full, or by the loop once
    // stopped. Unconsumed all the same (the admin counts and a restore say so), so consumable.
    const journaled = prior ? null : await this.journal.notificationOf(loop.sessionId, commandId);
    if (journaled && journaled.loopId === loop.loopId) {
      // A retry may have put it in the set meanwhile: it leaves the set too.
      return this.consumeJournaled(loop.sessionId, loop.loopId, commandId, () => loop.remove(commandId));
    }
    throw new NotificationNotFoundError(loop.loopId, commandId);
  }

  private async consumeJournaled(
    sessionId: string,
    loopId: string,
    commandId: string,
    removeFromSet: () => void,
  ): Promise<NotificationConsumption> {
    const { record, appended } = await this.journal.append(consumedRecord(sessionId, loopId, commandId));
    // Removed only after the consumed record committed, so a crash before it leaves it pending.
    removeFromSet();
    if (appended) this.eventBus.publish(new ProcessNotificationConsumedEvent(sessionId, loopId, commandId, record.sequence));
    return { consumed: appended, sequence: record.sequence };
  }
}
