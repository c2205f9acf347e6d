import { CommandHandler, EventBus, type ICommandHandler } from '@nestjs/cqrs';
import { ProcessNotificationAcceptedEvent } from '../../events/process-notification-accepted.event.js';
import { JournalPages } from '../../persistence/pages/journal-pages.service.js';
import type { LoopAnswer } from '../../loops/process-loop.js';
import { Loops } from '../../loops/loops.service.js';
import { OwnerUnavailableError } from '../../errors/owner-unavailable.error.js';
import { DispatchProcessNotificationCommand } from './dispatch-process-notification.command.js';

const DUPLICATE: LoopAnswer = { disposition: 'duplicate' };
const ACCEPTED: LoopAnswer = { disposition: 'accepted' };

/**
 * The loop's side of a delivery, in one place: find the loop, decide whether the notification
 * was already handed over once (held now, or consumed before), otherwise offer it, and answer
 * through the reply. The notification is journaled already.
 */
@CommandHandler(DispatchProcessNotificationCommand)
export class DispatchProcessNotificationHandler implements ICommandHandler<DispatchProcessNotificationCommand> {
  constructor(
    private readonly loops: Loops,
    private readonly journal: JournalPages,
    private readonly eventBus: EventBus,
  ) {}

  async execute({ notification, appended, reply }: DispatchProcessNotificationCommand): Promise<void> {
    // Never throw: the caller is waiting on `reply`, and a throw here would only be logged.
    try {
      const loop = this.loops.find(notification.sessionId, notification.loopId);
      // Journaled, but the session moved to another node meanwhile: its retry is answered there.
      if (!loop) throw new OwnerUnavailableError(notification.sessionId, 1, 'the session moved to another node');
      // One command id is handed to its loop once: only a retry (nothing appended) of one the
      // loop no longer holds can have been consumed, so only that case reads the journal.
      const consumed =
        !appended &&
        !loop.has(notification.commandId) &&
        (await this.journal.consumptionOf(loop.sessionId, notification.commandId)) !== null;
      // Consumed while this dispatch was on its way (the loop read it from a stream first): it
      // is the loop's and done with, so it is not put in the set; its first delivery was accepted.
      const consumedMeanwhile = !consumed && loop.wasConsumed(notification.commandId);
      const answer = consumed ? DUPLICATE : consumedMeanwhile ? (appended ? ACCEPTED : DUPLICATE) : loop.offer(notification);
      reply.next(answer);
      reply.complete();
      if (answer.disposition === 'accepted' && !consumedMeanwhile)
        this.eventBus.publish(new ProcessNotificationAcceptedEvent(notification));
    } catch (error) {
      reply.error(error);
    }
  }
}
