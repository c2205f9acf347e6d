import type { Subject } from 'rxjs';
import type { LoopAnswer } from '../sessions/process-loop.js';
import type { PendingProcessNotification } from '../sessions/pending-process-notification.interface.js';

/**
 * A journaled notification is ready to be handed to its loop. Internal: the LoopSaga turns it
 * into a dispatch, and the loop's answer travels back through `reply`.
 */
export class ProcessNotificationDispatchRequestedEvent {
  constructor(
    readonly notification: PendingProcessNotification,
    /** The journal already holds a consumed record for it: it must not go back into the set. */
    readonly alreadyConsumed: boolean,
    readonly reply: Subject<LoopAnswer>,
  ) {}
}
