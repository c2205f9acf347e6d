import { ProcessNotificationsError } from './process-notifications.error.js';

/** The journal could not be written (or read); nothing was dispatched. */
export class JournalUnavailableError extends ProcessNotificationsError {
  readonly code = 'journal_unavailable';

  constructor(cause: unknown) {
    super(`journal unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
