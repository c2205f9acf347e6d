import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { EventBus, ofType, Saga, type ICommand, type IEvent } from '@nestjs/cqrs';
import { map, type Observable } from 'rxjs';
import { DispatchProcessNotificationCommand } from '../commands/dispatch-process-notification/dispatch-process-notification.command.js';
import { ProcessNotificationDispatchRequestedEvent } from '../events/process-notification-dispatch-requested.event.js';

/**
 * Hands journaled notifications to their loops: the middle step of an in-process request/reply.
 *
 * 1. The notify handler (`NotifyProcessCompletionHandler`), once the notification is journaled,
 *    makes a reply subject of its own (a `ReplaySubject<LoopAnswer>(1)`: the answer may come
 *    before it subscribes, even within `publish`), publishes a
 *    {@link ProcessNotificationDispatchRequestedEvent} carrying it, and waits for the subject's
 *    first value or the module's shutdown, whichever comes first.
 * 2. This saga only maps that event to a {@link DispatchProcessNotificationCommand} carrying the
 *    same subject (`ofType` + `map`, nothing else).
 * 3. The dispatch handler offers the notification to its loop and answers on the subject exactly
 *    once: `next` + `complete` with the loop's answer, or `error`; it never throws, since a saga's
 *    command has no caller to throw to.
 *
 * The reply travels in the event because a saga's commands return nothing to whoever published
 * the event. The subject is a live object of this process, so the event bus must keep its
 * default in-memory publisher (checked at bootstrap): an event sent to a broker would arrive
 * without a subject anyone waits on.
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
