import { Command } from '@nestjs/cqrs';
import type { Subject } from 'rxjs';
import type { LoopAnswer } from '../../loops/process-loop.js';
import type { PendingProcessNotification } from '../../model/pending-process-notification.interface.js';

/** Offer a journaled notification to its loop and answer through `reply`. `appended` as in the event. */
export class DispatchProcessNotificationCommand extends Command<void> {
  constructor(
    readonly notification: PendingProcessNotification,
    readonly appended: boolean,
    readonly reply: Subject<LoopAnswer>,
  ) {
    super();
  }
}
