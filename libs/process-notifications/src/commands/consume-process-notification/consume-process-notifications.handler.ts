import { CommandHandler, EventBus, type ICommandHandler } from '@nestjs/cqrs';
import { ProcessNotificationConsumedEvent } from '../../events/process-notification-consumed.event.js';
import { ValidationError } from '../../errors/validation.error.js';
import { JournalWriter } from '../../persistence/journal/journal-writer.service.js';
import { Loops } from '../../loops/loops.service.js';
import { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { isCanonicalUuid } from '../../validation/canonical-uuid.decorator.js';
import { normaliseId } from '../../validation/normalise-id.js';
import { ConsumeProcessNotificationsCommand, MAX_CONSUME_BATCH } from './consume-process-notifications.command.js';
import type { NotificationConsumptionResult } from './notification-consumption.interface.js';

const FIELD = 'command_ids';

/** The command ids of a batch, lower case, or a `ValidationError` on field `command_ids`. */
function commandIdsOf(input: unknown): string[] {
  if (!Array.isArray(input) || input.length < 1 || input.length > MAX_CONSUME_BATCH) {
    throw new ValidationError(FIELD, `${FIELD} must be an array of 1 to ${MAX_CONSUME_BATCH} command ids`);
  }
  return input.map((id: unknown) => {
    if (!isCanonicalUuid(id)) throw new ValidationError(FIELD, `${FIELD} must hold canonical UUIDs only`);
    return normaliseId(id);
  });
}

/**
 * Consumes a batch of a loop's notifications in one journal transaction, each decided as the
 * single consume decides it (see ConsumeProcessNotificationHandler): a committed batch is
 * answered per id, a failed one changes nothing (the caller retries it whole; what committed
 * answers `consumed: false` then).
 */
@CommandHandler(ConsumeProcessNotificationsCommand)
export class ConsumeProcessNotificationsHandler implements ICommandHandler<ConsumeProcessNotificationsCommand> {
  constructor(
    private readonly loops: Loops,
    private readonly ownership: SessionOwnership,
    private readonly journal: JournalWriter,
    private readonly eventBus: EventBus,
  ) {}

  async execute(command: ConsumeProcessNotificationsCommand): Promise<NotificationConsumptionResult[]> {
    const commandIds = commandIdsOf(command.commandIds);
    const session = await this.ownership.ownOpen(command.sessionId);
    const loop = this.loops.require(session, command.loopId);
    const answers = await this.journal.consume(loop.sessionId, loop.loopId, commandIds, (id) => loop.has(id));
    for (const answer of answers) {
      if ('notFound' in answer) continue;
      // After the commit, as for one consume: out of the set, or kept out of it.
      loop.consumed(answer.commandId);
      if (answer.consumed) {
        this.eventBus.publish(new ProcessNotificationConsumedEvent(loop.sessionId, loop.loopId, answer.commandId, answer.sequence));
      }
    }
    return answers;
  }
}
