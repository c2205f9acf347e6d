import type { StoreTransaction } from '../transaction/store-transaction.js';
import type { JournalAppend, JournalDraft } from './journal-draft.interface.js';

/**
 * Rows that every unit of work of a batch may add to, written once for the whole batch after its
 * last unit and before it commits (one statement for many units: on PostgreSQL each statement is
 * a round trip). Identified by the object itself: units that give the same one share its write.
 */
export interface BeforeCommit<T> {
  /** Writes what the batch's units gave, in the order they gave it. */
  write(store: StoreTransaction, items: readonly T[]): Promise<void>;
}

/** Appends inside a unit of work given to `JournalWriter.write`, committed with it. */
export interface JournalTransaction {
  append(draft: JournalDraft): Promise<JournalAppend>;
  /** Runs `action` once the transaction has committed (never if it does not), before the next one runs. */
  afterCommit(action: () => void): void;
  /** Gives `item` to `rows`, written in this transaction after every unit of its batch ran (see {@link BeforeCommit}). */
  beforeCommit<T>(rows: BeforeCommit<T>, item: T): void;
}
