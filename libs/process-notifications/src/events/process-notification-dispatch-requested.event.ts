import type { Subject } from 'rxjs';
import type { LoopAnswer } from '../loops/process-loop.js';
import type { PendingProcessNotification } from '../model/pending-process-notification.interface.js';

/**
 * A journaled notification is ready to be handed to its loop. Internal: the LoopSaga turns it
 * into a dispatch, and the loop's answer travels back through `reply`.
 */
export class ProcessNotificationDispatchRequestedEvent {
  constructor(
    readonly notification: PendingProcessNotification,
    /** Whether this call journaled it (false: an identical earlier call did, so it may be consumed). */
    readonly appended: boolean,
    readonly reply: Subject<LoopAnswer>,
  ) {}
}
