import type { Subject } from 'rxjs';
import type { LoopAnswer } from '../loops/process-loop.js';
import type { PendingProcessNotification } from '../model/pending-process-notification.interface.js';

/**
 * A journaled notification is ready to be handed to its loop: the request half of an in-process
 * request/reply (see `LoopSaga`). Internal, never exported: the `LoopSaga` maps it to a
 * `DispatchProcessNotificationCommand`, whose handler answers on `reply`, which the notify
 * handler that published the event is waiting on.
 */
export class ProcessNotificationDispatchRequestedEvent {
  constructor(
    readonly notification: PendingProcessNotification,
    /** Whether this call journaled it (false: an identical earlier call did, so it may be consumed). */
    readonly appended: boolean,
    /**
     * Where the loop's answer goes, once (`next` + `complete`, or `error`): made by the publisher
     * and alive only in this process, which is why the event bus must stay in memory.
     */
    readonly reply: Subject<LoopAnswer>,
  ) {}
}
