import { NetworkError, ProblemError, type ProcessNotificationsClient, type RetryNotice } from 'process-notifications-client';
import { DeliveryRejectedError } from './delivery-rejected.error.js';
import { EntryRecordsBuilder, type EntryRecord } from './entry-records.builder.js';
import type { StateDirectoryStore } from './state-directory.store.js';
import type { StateEntry } from './state-entry.interface.js';
import type { StderrReporter } from './stderr.reporter.js';
import { UnusableAnswerError } from './unusable-answer.error.js';

/** How delivering an entry ended. */
export type DeliveryResult = 'delivered' | 'loop_stopped' | 'in_progress';

const describe = (record: EntryRecord): string =>
  record.key === 'notification' ? 'the completion notification' : `the ${record.key} record`;

// A retry line after the 1st, 2nd, 4th, 8th... failed attempt of a record: an outage of an
// hour is a dozen lines, not hundreds, and the attempt number shows how long it has lasted.
const reported = (attempt: number): boolean => (attempt & (attempt - 1)) === 0;

/**
 * Publishes the records of state entries, one at a time and in order across all entries, each
 * retried with its identical body until answered. After each answer the entry is rewritten, and
 * once the notification is answered `accepted` or `duplicate` (or `delivery_stopped` with cause
 * `loop_stopped`, which is journaled and final) the entry is forgotten.
 */
export class EntryDeliverer {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: ProcessNotificationsClient,
    private readonly store: StateDirectoryStore,
    private readonly reporter: StderrReporter,
    private readonly signal: AbortSignal,
    private readonly onRetry: (notice: RetryNotice, entry: StateEntry) => void = () => undefined,
  ) {}

  /**
   * Sends what the entry holds and has not been answered yet, after everything queued before.
   * Resolves `in_progress` while the command has not ended, else how delivery ended; rejects
   * with {@link DeliveryRejectedError} on a final refusal, {@link UnusableAnswerError} on an
   * answer that is not the service's, or when the supervisor is aborted.
   */
  drain(entry: StateEntry): Promise<DeliveryResult> {
    const run = this.tail.then(() => this.send(entry));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async send(entry: StateEntry): Promise<DeliveryResult> {
    if (entry.rejected) throw new DeliveryRejectedError(new ProblemError({ type: 'about:blank', title: 'Rejected', ...entry.rejected }));
    for (const record of EntryRecordsBuilder.pending(entry)) {
      const options = {
        signal: this.signal,
        onRetry: (notice: RetryNotice) => {
          this.onRetry(notice, entry);
          if (!reported(notice.attempt)) return;
          const seconds = (notice.delayMs / 1000).toFixed(1);
          const then = notice.attempt === 1 ? '; retrying with backoff, said again after 2, 4, 8, ... failed attempts' : '';
          this.reporter.progress(
            `sending ${describe(record)} failed (${notice.reason}); attempt ${notice.attempt + 1} in ${seconds} s${then}`,
          );
        },
      };
      try {
        if (record.key === 'notification') await this.client.deliverCompletion(record.notification, options);
        else await this.client.publishLifecycle(record.lifecycle, options);
      } catch (error) {
        if (error instanceof ProblemError && error.code === 'delivery_stopped' && error.cause === 'loop_stopped') {
          this.reporter.error('the loop is stopped: the completion notification is journaled, but no loop will take it');
          this.store.remove(entry);
          return 'loop_stopped';
        }
        if (error instanceof ProblemError) {
          entry.rejected = { status: error.status, code: error.code, detail: error.detail };
          this.store.save(entry);
          throw new DeliveryRejectedError(error);
        }
        // An answer that is not the service's (a 2xx that is not JSON): the entry stays as it
        // is, so a later run sends the record again under the same ids.
        if (!this.signal.aborted && !(error instanceof NetworkError)) throw new UnusableAnswerError(describe(record), error);
        throw error;
      }
      entry.published.push(record.key);
      if (record.key === 'notification') {
        this.store.remove(entry);
        return 'delivered';
      }
      this.store.save(entry);
    }
    return 'in_progress';
  }
}
