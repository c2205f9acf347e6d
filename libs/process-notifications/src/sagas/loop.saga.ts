import { Injectable } from '@nestjs/common';
import { ofType, Saga, type ICommand, type IEvent } from '@nestjs/cqrs';
import { map, type Observable } from 'rxjs';
import { DispatchProcessNotificationCommand } from '../commands/dispatch-process-notification/dispatch-process-notification.command.js';
import { ProcessNotificationDispatchRequestedEvent } from '../events/process-notification-dispatch-requested.event.js';

/** Hands journaled notifications to their loops. Only maps: the dispatch handler does the work. */
@Injectable()
export class LoopSaga {
  @Saga()
  dispatchJournaled = (events$: Observable<IEvent>): Observable<ICommand> =>
    events$.pipe(
      ofType(ProcessNotificationDispatchRequestedEvent),
      map((event) => new DispatchProcessNotificationCommand(event.notification, event.alreadyConsumed, event.reply)),
    );
}
