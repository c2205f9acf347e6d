import { CommandHandler, EventBus, type ICommandHandler } from '@nestjs/cqrs';
import { ProcessNotificationAcceptedEvent } from '../../events/process-notification-accepted.event.js';
import type { LoopAnswer } from '../../sessions/process-loop.js';
import { SessionRegistry } from '../../sessions/session-registry.service.js';
import { DispatchProcessNotificationCommand } from './dispatch-process-notification.command.js';

@CommandHandler(DispatchProcessNotificationCommand)
export class DispatchProcessNotificationHandler implements ICommandHandler<DispatchProcessNotificationCommand> {
  constructor(
    private readonly registry: SessionRegistry,
    private readonly eventBus: EventBus,
  ) {}

  async execute({ notification, alreadyConsumed, reply }: DispatchProcessNotificationCommand): Promise<void> {
    // Never throw: the caller is waiting on `reply`, and a throw here would only be logged.
    try {
      const loop = this.registry.getLoop(notification.sessionId, notification.loopId);
      let answer: LoopAnswer;
      if (!loop) answer = { disposition: 'stopped', cause: 'misrouted' };
      // One command id is handed to its loop once: a late retry of a consumed one is a duplicate.
      else if (alreadyConsumed) answer = { disposition: 'duplicate' };
      else answer = loop.offer(notification);
      reply.next(answer);
      reply.complete();
      if (answer.disposition === 'accepted') this.eventBus.publish(new ProcessNotificationAcceptedEvent(notification));
    } catch (error) {
      reply.error(error);
    }
  }
}
