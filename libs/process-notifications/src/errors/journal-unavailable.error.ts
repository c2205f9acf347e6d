import { ProcessNotificationsError } from './process-notifications.error.js';

/**
 * The journal could not be written (or read) in time. `mayHaveCommitted` false: the write never
 * reached the database (it waited in the queue past its deadline, or was refused before it ran),
 * so nothing was written and nothing was dispatched. True: its transaction was under way when the
 * caller was answered (a commit or its sync stalled past the deadline, or it failed without a
 * known rollback), so it may have committed after all, and then counts like any committed write:
 * an identical retry tells which (issue 45).
 */
export class JournalUnavailableError extends ProcessNotificationsError {
  readonly code = 'journal_unavailable';
  readonly mayHaveCommitted: boolean;

  constructor(cause: unknown, options: { mayHaveCommitted?: boolean } = {}) {
    super(`journal unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.mayHaveCommitted = options.mayHaveCommitted ?? false;
  }
}
