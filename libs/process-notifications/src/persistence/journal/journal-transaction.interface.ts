import type { JournalAppend, JournalDraft } from './journal-draft.interface.js';

/** Appends inside a unit of work given to `JournalWriter.write`, committed with it. */
export interface JournalTransaction {
  append(draft: JournalDraft): Promise<JournalAppend>;
  /** Runs `action` once the transaction has committed (never if it does not), before the next one runs. */
  afterCommit(action: () => void): void;
}
