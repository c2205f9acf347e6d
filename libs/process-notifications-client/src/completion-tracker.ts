import type { LoopEvent, PendingNotification } from 'process-notifications-contract';

/** One item of {@link ProcessNotificationsClient.completions}. */
export interface CompletionUpdate {
  /** The notification as the pending view shows it, with `sequence` and `outcome`. */
  readonly notification: PendingNotification;
  /**
   * `new`: the first time this command id is yielded; `outcome`: once more, when the record that
   * says how its process ended was journaled after the notification.
   */
  readonly update: 'new' | 'outcome';
}

/**
 * The bookkeeping of one `completions()` iteration over a loop's stream, apart from its I/O: it
 * takes the stream's events in order and says what to yield, each command id once as `new` and at
 * most once more as `outcome`. Constant work per event; it holds one entry per notification
 * given and not consumed yet (a `consumed` event lets go of it).
 */
export class CompletionTracker {
  // Command ids given and not consumed yet: whether their outcome was given too.
  private readonly given = new Map<string, boolean>();

  /**
   * @param afterSequence resuming: the caller already had every notification up to this sequence,
   *   so an outcome of one of those is yielded although this iteration never gave it
   */
  constructor(private readonly afterSequence?: number) {}

  /** Notifications given and not known to be consumed: what this iteration holds. */
  get size(): number {
    return this.given.size;
  }

  /** The update an event of the stream makes, if any. */
  take(event: LoopEvent): CompletionUpdate | undefined {
    if (event.type === 'consumed') {
      this.given.delete(event.consumed.command_id);
      return undefined;
    }
    const { notification } = event;
    const outcomeGiven = this.given.get(notification.command_id);
    if (event.type === 'notification') {
      if (outcomeGiven !== undefined) return undefined;
      this.given.set(notification.command_id, notification.outcome !== null);
      return { notification, update: 'new' };
    }
    if (outcomeGiven === true) return undefined;
    // Not given here: yielded only to a caller that had it before it resumed (else it was
    // consumed before the stream read it).
    if (outcomeGiven === undefined && !(this.afterSequence !== undefined && notification.sequence <= this.afterSequence)) return undefined;
    this.given.set(notification.command_id, true);
    return { notification, update: 'outcome' };
  }
}
