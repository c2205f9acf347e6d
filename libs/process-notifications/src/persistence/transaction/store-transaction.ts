import type { EntityManager } from 'typeorm';

declare const storeReader: unique symbol;
declare const storeTransaction: unique symbol;

/**
 * A read's hold on the store, as `JournalWriter.read` and `lookup` hand it to their work: opaque
 * outside `persistence/`, whose row classes alone read through it (no SQL elsewhere).
 */
export interface StoreReader {
  readonly [storeReader]: true;
}

/**
 * A unit of work's hold on the store, inside the transaction `JournalWriter.write` runs it in:
 * opaque outside `persistence/`, whose row classes alone write through it. It reads too.
 */
export interface StoreTransaction extends StoreReader {
  readonly [storeTransaction]: true;
}

/** The TypeORM manager behind a reader or a transaction (persistence and its tests only). */
export function managerOf(store: StoreReader): EntityManager {
  return store as unknown as EntityManager;
}

/** A TypeORM manager in a transaction, as the opaque handle the rest of the library passes on. */
export function transactionOf(manager: EntityManager): StoreTransaction {
  return manager as unknown as StoreTransaction;
}

/** A TypeORM manager to read through, as the opaque handle the rest of the library passes on. */
export function readerOf(manager: EntityManager): StoreReader {
  return manager as unknown as StoreReader;
}
