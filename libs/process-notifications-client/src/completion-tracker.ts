import type { JournalRecord, PendingNotification, ProcessCompletionNotification, ProcessOutcome } from './api.types.js';

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

interface Seen {
  notification: PendingNotification;
  /** The outcome the caller has been given (or, resuming, is known to have been). */
  outcomeGiven: boolean;
  /** Resuming: the event id of the outcome the pending view showed, which a later record must match. */
  expectedEventId?: string;
}

/** The outcome a `completed` or `lost` journal record gives the command id it names, if it names one. */
export function outcomeFromRecord(record: JournalRecord): { commandId: string; outcome: ProcessOutcome } | undefined {
  if ((record.kind !== 'completed' && record.kind !== 'lost') || record.payload === null) return undefined;
  const payload = record.payload;
  if (payload.command_id === undefined) return undefined;
  return {
    commandId: payload.command_id,
    outcome: {
      event_id: payload.event_id,
      kind: record.kind,
      has_exit_code: payload.has_exit_code ?? false,
      exit_code: payload.exit_code ?? null,
      diagnostic: payload.diagnostic ?? null,
      process_started_at: payload.process_started_at ?? null,
      process_finished_at: payload.process_finished_at ?? null,
    },
  };
}

/**
 * The bookkeeping of one `completions()` iteration, apart from its I/O: which command ids were
 * yielded and whether with their outcome, and the outcomes met in the journal before their
 * notification (the first record naming a command id wins). Feed it the pending view, then journal
 * records in sequence order; it says what to yield, each command id once as `new` and at most once
 * more as `outcome`.
 */
export class CompletionTracker {
  private readonly seen = new Map<string, Seen>();
  // Outcomes of command ids not yielded yet, first record first.
  private readonly early = new Map<string, ProcessOutcome>();

  constructor(private readonly loopId: string) {}

  /** True once `commandId` was yielded (or, resuming, delivered before). */
  has(commandId: string): boolean {
    return this.seen.has(commandId);
  }

  /** An outcome met in the journal for a command id not yielded yet. */
  earlyOutcome(commandId: string): ProcessOutcome | undefined {
    return this.early.get(commandId);
  }

  /** Takes a notification the caller gets now as `new`. */
  yieldNew(notification: PendingNotification): CompletionUpdate {
    this.seen.set(notification.command_id, { notification, outcomeGiven: notification.outcome !== null });
    return { notification, update: 'new' };
  }

  /**
   * Takes a notification the caller already had (it is at or before the resume position): only an
   * outcome journaled after that position is yielded for it, and only the one the view shows.
   */
  alreadyDelivered(notification: PendingNotification): void {
    this.seen.set(notification.command_id, {
      notification: { ...notification, outcome: null },
      outcomeGiven: false,
      expectedEventId: notification.outcome?.event_id,
    });
  }

  /**
   * A journal record, in sequence order: the `outcome` update it makes, if any. A notification
   * record is the caller's to turn into a {@link PendingNotification} (see {@link notificationOf}).
   */
  outcomeUpdate(record: JournalRecord): CompletionUpdate | undefined {
    const found = outcomeFromRecord(record);
    if (!found) return undefined;
    const seen = this.seen.get(found.commandId);
    if (!seen) {
      if (!this.early.has(found.commandId)) this.early.set(found.commandId, found.outcome);
      return undefined;
    }
    if (seen.outcomeGiven) return undefined;
    // Resuming: a record the view does not show as the outcome is a later one; it changes nothing.
    if (seen.expectedEventId !== undefined && seen.expectedEventId !== found.outcome.event_id) return undefined;
    seen.outcomeGiven = true;
    seen.notification = { ...seen.notification, outcome: found.outcome };
    return { notification: seen.notification, update: 'outcome' };
  }

  /** The notification a journal record of this loop carries, not yielded yet; else undefined. */
  notificationOf(record: JournalRecord): (ProcessCompletionNotification & { readonly sequence: number }) | undefined {
    if (record.kind !== 'process_notification' || record.payload === null) return undefined;
    if (record.payload.loop_id !== this.loopId || this.seen.has(record.payload.command_id)) return undefined;
    return { ...record.payload, sequence: record.sequence };
  }
}
