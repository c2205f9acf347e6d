import type { DataSource, EntityManager } from 'typeorm';
import { DataSource as TypeOrmDataSource } from 'typeorm';
import { storeDialectOf } from '../dialects/store-dialects.js';
import { ProcessNotificationsError } from '../../errors/process-notifications.error.js';
import { JournalUnavailableError } from '../../errors/journal-unavailable.error.js';
import type { JournalDurability } from '../durability/journal-durability.js';
import type { SqliteConnection, SqliteStatement } from '../dialects/store-connection.js';

// The longest one event loop turn spends on reads back to back (see inTurn).
const READ_TURN_MS = 5;

/**
 * Where reads run, never behind a write batch: on a SQLite file a second, read-only connection
 * (WAL lets it read the last commit while a batch runs), one read at a time with the event loop
 * let through between two, never reading a commit before its sync returned; on PostgreSQL a
 * pooled connection, with the writer's deadline. In-memory SQLite has one connection: its reads must queue with the
 * writes, so they never observe another caller's uncommitted transaction.
 */
export class JournalReadConnection {
  private readonly sqlite: boolean;
  // SQLite file databases: the read-only connection.
  private readSource?: DataSource;

  // Reads waiting for their turn, run one at a time; whether a turn is scheduled or running.
  private readonly waiting: Array<{ run: () => Promise<void>; fail: (error: unknown) => void }> = [];
  private draining = false;
  // The statement that takes a turn's snapshot, prepared once per connection (not every turn).
  private readonly probes = new WeakMap<SqliteConnection, SqliteStatement>();

  /**
   * @param durability a SQLite file's: each turn of reads runs in one read transaction whose
   * snapshot is taken when every commit is synced, so no read answers a record a power cut
   * could still take back (see {@link JournalDurability})
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly timeoutMs: number,
    private readonly durability?: JournalDurability,
  ) {
    this.sqlite = storeDialectOf(dataSource).inProcess;
  }

  /** Opens the read-only connection of a SQLite file (nothing to open otherwise). */
  async open(): Promise<void> {
    const options = storeDialectOf(this.dataSource).readOnlyOptions(this.dataSource);
    if (options) this.readSource = await new TypeOrmDataSource(options).initialize();
  }

  // A better-sqlite3 read runs in this thread, without a pause: many readers at once would hold
  // the event loop for all their reads back to back, and every other request (a delivery of
  // another session) would wait behind them. So reads take turns, one at a time, in event loop
  // turns of their own (setImmediate), letting the I/O of other requests in between; a turn runs
  // reads until READ_TURN_MS is spent, not one only. A busy server's turn handles every request
  // that arrived meanwhile (64 deliveries: tens of milliseconds), so with one read per turn the
  // reads of 16 loops' streams after a commit came one per such turn (issue 37's bench: send →
  // loop given p50 181 ms with one read per turn or a 1 ms budget, 51 ms with 5 ms, the same
  // with 10 ms), while a read of a few rows takes microseconds.
  private inTurn<T>(read: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ run: () => read().then(resolve, reject), fail: reject });
      if (!this.draining) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  // On a SQLite file whose commits the writer syncs (JournalDurability), a turn's reads run in one
  // read transaction, its snapshot taken when every commit is synced.
  private async drain(): Promise<void> {
    const { durability, readSource } = this;
    const snapshot = durability && readSource ? storeDialectOf(readSource).directConnection(readSource) : undefined;
    if (durability && snapshot) {
      try {
        await durability.whenDurable(() => {
          this.endSnapshot(snapshot);
          snapshot.exec('BEGIN');
          // The first read of a transaction takes its snapshot: the commits synced so far.
          this.probeOf(snapshot, readSource!).all();
        });
      } catch (error) {
        const failed = new JournalUnavailableError(error);
        for (const read of this.waiting.splice(0)) read.fail(failed);
        this.endSnapshot(snapshot);
        this.draining = false;
        return;
      }
    }
    const started = performance.now();
    try {
      while (this.waiting.length > 0) {
        await this.waiting.shift()!.run();
        if (this.waiting.length > 0 && performance.now() - started >= READ_TURN_MS) {
          setImmediate(() => void this.drain());
          return;
        }
      }
      this.draining = false;
    } finally {
      if (snapshot) this.endSnapshot(snapshot);
    }
  }

  private probeOf(connection: SqliteConnection, source: DataSource): SqliteStatement {
    let probe = this.probes.get(connection);
    if (!probe) this.probes.set(connection, (probe = connection.prepare(storeDialectOf(source).probe)));
    return probe;
  }

  private endSnapshot(connection: SqliteConnection): void {
    if (connection.open && connection.inTransaction) connection.exec('COMMIT');
  }

  async close(): Promise<void> {
    const source = this.readSource;
    this.readSource = undefined;
    if (source?.isInitialized) await source.destroy();
  }

  /**
   * Runs `work` as a read; `queued` runs it with the writes where reads must queue. A domain
   * error is handed back as it is, any other failure as {@link JournalUnavailableError}.
   * @param timeoutMs on PostgreSQL, its deadline (the writer's, unless shorter)
   */
  async read<T>(
    work: (manager: EntityManager) => Promise<T>,
    queued: (work: (manager: EntityManager) => Promise<T>) => Promise<T>,
    timeoutMs = this.timeoutMs,
  ): Promise<T> {
    if (this.sqlite) {
      if (!this.readSource?.isInitialized) return queued(work);
      const source = this.readSource;
      return this.inTurn(async () => {
        try {
          return await work(source.manager);
        } catch (error) {
          throw error instanceof ProcessNotificationsError ? error : new JournalUnavailableError(error);
        }
      });
    }
    const deadlineMs = Math.min(timeoutMs, this.timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${deadlineMs} ms`)), deadlineMs);
    });
    try {
      return await Promise.race([work(this.dataSource.manager), deadline]);
    } catch (error) {
      throw error instanceof ProcessNotificationsError ? error : new JournalUnavailableError(error);
    } finally {
      clearTimeout(timer);
    }
  }
}
