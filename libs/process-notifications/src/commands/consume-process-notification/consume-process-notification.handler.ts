import { CommandHandler, EventBus, type ICommandHandler } from '@nestjs/cqrs';
import { NotificationNotFoundError } from '../../errors/notification-not-found.error.js';
import { ProcessNotificationConsumedEvent } from '../../events/process-notification-consumed.event.js';
import { JournalWriter } from '../../persistence/journal/journal-writer.service.js';
import { Loops } from '../../loops/loops.service.js';
import { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { requireCanonicalUuid } from '../../validation/canonical-uuid.decorator.js';
import { ConsumeProcessNotificationCommand } from './consume-process-notification.command.js';
import type { NotificationConsumption } from './notification-consumption.interface.js';

/**
 * Consumes one notification of a loop. Whether the loop may consume it is decided in the journal
 * transaction that writes the consumed record (a notification journaled for this loop and not
 * consumed yet), not from the pending set alone: a loop that reads its notifications from a
 * stream can be given one before the dispatch that puts it in the set has run (on PostgreSQL the
 * record is visible to readers before the writer hears its COMMIT answered), or one refused
 * `inbox_full`, which is journaled and the loop's work. Both used to answer 404.
 */
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
    const [answer] = await this.journal.consume(loop.sessionId, loop.loopId, [commandId], (id) => loop.has(id));
    if (!answer || 'notFound' in answer) throw new NotificationNotFoundError(loop.loopId, commandId);
    // After the consumed record committed, so a crash before it leaves the notification pending;
    // also when the set does not hold it (yet): a dispatch on its way then leaves it out.
    loop.consumed(commandId);
    if (answer.consumed) {
      this.eventBus.publish(new ProcessNotificationConsumedEvent(loop.sessionId, loop.loopId, commandId, answer.sequence));
    }
    return { consumed: answer.consumed, sequence: answer.sequence };
  }
}
