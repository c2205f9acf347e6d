import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { EventBus, ofType, Saga, type ICommand, type IEvent } from '@nestjs/cqrs';
import { map, type Observable } from 'rxjs';
import { DispatchProcessNotificationCommand } from '../commands/dispatch-process-notification/dispatch-process-notification.command.js';
import { ProcessNotificationDispatchRequestedEvent } from '../events/process-notification-dispatch-requested.event.js';

/**
 * Hands journaled notifications to their loops. Only maps: the dispatch handler does the work,
 * and the loop's answer travels back through the event's reply subject, which exists only in
 * this process: the event bus must keep its default in-memory publisher.
 */
@Injectable()
export class LoopSaga implements OnApplicationBootstrap {
  constructor(private readonly eventBus: EventBus) {}

  @Saga()
  dispatchJournaled = (events$: Observable<IEvent>): Observable<ICommand> =>
    events$.pipe(
      ofType(ProcessNotificationDispatchRequestedEvent),
      map((event) => new DispatchProcessNotificationCommand(event.notification, event.appended, event.reply)),
    );

  // Checked once the host's own modules had their onModuleInit, where a publisher is usually set.
  onApplicationBootstrap(): void {
    const publisher = this.eventBus.publisher.constructor.name;
    if (publisher !== 'DefaultPubSub') {
      throw new Error(
        `process-notifications needs the CQRS event bus's default in-memory publisher, but the host set ${publisher}: ` +
          'loop answers travel back through in-process events. Publish your own events to a broker from event handlers instead.',
      );
    }
  }
}
