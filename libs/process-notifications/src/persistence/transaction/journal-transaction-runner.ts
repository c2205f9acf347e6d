import type { LoggerService } from '@nestjs/common';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { isServerError, isStoreFailure } from '../dialects/store-failure.js';
import type { StoreDialect } from '../dialects/store-dialect.js';
import { storeDialectOf } from '../dialects/store-dialects.js';
import type { JournalDurability } from '../durability/journal-durability.js';

/** What one transaction answered: the body's value once committed, or why nothing counts. */
export type TransactionResult<T> = { value: T; seconds: number } | { error: unknown; retryAlone: boolean };

/**
 * Runs one transaction at a time, BEGIN and COMMIT sent by the writer itself (TypeORM's
 * transaction nesting is never used). Its value counts only when COMMIT succeeded and, on SQLite,
 * the connection is verifiably no longer in a transaction. After any failure the connection is
 * left out of any transaction or dropped: SQLite's one connection is rolled back (or repaired at
 * the next BEGIN), a PostgreSQL connection that stalled or broke is never pooled again (one the
 * server answered with an error is rolled back and pooled).
 */
export class JournalTransactionRunner {
  private readonly dialect: StoreDialect;

  /**
   * @param durability a SQLite file's: every COMMIT is followed by its sync (see
   * {@link JournalDurability}) before the transaction counts, and a failed sync fails it
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly logger: LoggerService,
    private readonly durability?: JournalDurability,
  ) {
    this.dialect = storeDialectOf(dataSource);
  }

  /**
   * Runs `body` in a transaction. `retryAlone` says the failure was the body's own (a statement,
   * not the store): its jobs may be tried again one by one.
   */
  async run<T>(body: (manager: EntityManager) => Promise<T>): Promise<TransactionResult<T>> {
    const started = performance.now();
    let runner: QueryRunner;
    try {
      runner = await this.begin();
    } catch (error) {
      return { error, retryAlone: false };
    }
    let value: T;
    try {
      value = await body(runner.manager);
    } catch (error) {
      await this.abort(runner, error);
      return { error, retryAlone: !isStoreFailure(error) };
    }
    try {
      this.durability?.committing();
      await runner.query('COMMIT');
      // SQLite may report success while the connection is still inside a transaction only if
      // something is badly wrong; trust nothing that is not verifiably committed.
      if (this.inSqliteTransaction(runner)) throw new Error('COMMIT returned but the connection is still in a transaction');
    } catch (error) {
      await this.abort(runner, error);
      // Whatever the failed COMMIT left is synced too, so reads are not held behind it.
      await this.durability?.sync().catch(() => undefined);
      return { error, retryAlone: false };
    }
    try {
      await this.durability?.sync();
    } catch (error) {
      return { error, retryAlone: false };
    }
    this.releasePooled(runner);
    return { value, seconds: (performance.now() - started) / 1000 };
  }

  private async begin(): Promise<QueryRunner> {
    if (!this.dataSource.isInitialized) throw new Error('the database connection is closed');
    this.durability?.check();
    // SQLite: the one shared connection. PostgreSQL: a pooled connection for this transaction.
    const runner = this.dataSource.createQueryRunner('master');
    try {
      await runner.connect();
      if (this.inSqliteTransaction(runner)) {
        // A transaction SQLite did not end (or ended behind TypeORM's back) must not turn this
        // one into a savepoint of it: repair, or fail closed.
        this.rollbackSqlite(runner);
        if (this.inSqliteTransaction(runner)) throw new Error('the SQLite connection is stuck in a transaction');
      }
      await runner.query(this.dialect.begin);
      return runner;
    } catch (error) {
      this.discardPooled(runner);
      throw error;
    }
  }

  // After any failure: leave the connection out of any transaction, or drop it.
  private async abort(runner: QueryRunner, error: unknown): Promise<void> {
    if (this.dialect.inProcess) {
      this.rollbackSqlite(runner);
      return;
    }
    // The server answered with an error (a full disk, a statement timeout, a constraint): the
    // connection is healthy and goes back to the pool once rolled back. A broken, timed-out or
    // terminated connection (no answer, or a FATAL one) is destroyed.
    if (isStoreFailure(error) && !isServerError(error)) {
      this.discardPooled(runner);
      return;
    }
    try {
      await runner.query('ROLLBACK');
      this.releasePooled(runner);
    } catch {
      this.discardPooled(runner);
    }
  }

  // SQLite rolls back by itself after SQLITE_FULL, SQLITE_IOERR and the like; ROLLBACK is sent
  // only when a transaction is really open, and its own failure is left to the next BEGIN.
  private rollbackSqlite(runner: QueryRunner): void {
    const db = this.dialect.directConnection(runner.connection);
    if (!db?.open || !db.inTransaction) return;
    try {
      db.exec('ROLLBACK');
    } catch (error) {
      this.logger.warn(`ROLLBACK failed: ${(error as Error).message}`);
    }
  }

  private inSqliteTransaction(runner: QueryRunner): boolean {
    return this.dialect.directConnection(runner.connection)?.inTransaction === true;
  }

  private releasePooled(runner: QueryRunner): void {
    this.dialect.release(runner);
  }

  // A PostgreSQL connection that failed or timed out mid-query is destroyed, not returned to
  // the pool: a stalled statement may still be queued on it.
  private discardPooled(runner: QueryRunner): void {
    this.dialect.discard(runner);
  }
}
