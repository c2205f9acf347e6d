import type { DataSource, DataSourceOptions, EntityManager, QueryRunner } from 'typeorm';
import type { SqliteConnection } from './store-connection.js';

/** A SQLite file's write-ahead log: the database, its WAL, and the driver module that opens it. */
export interface StoreWal {
  readonly database: string;
  readonly wal: string;
  /** Resolved path of the driver's module, loaded by the checkpoint thread. */
  readonly driver: string;
}

/** A process's ownership of a database file, held until released (or the process ends). */
export interface StoreOwnership {
  /** Gives the file up: another process may own it from now on. */
  release(): void;
}

/**
 * What differs between the databases the library runs on, in one port: every SQLite/PostgreSQL
 * difference of `persistence/` outside the migrations is a member here, and the rest of
 * persistence asks the dialect of its data source ({@link storeDialectOf}) instead of the
 * driver's type. One adapter per database: `SqliteStoreDialect`, `PostgresStoreDialect`.
 */
export interface StoreDialect {
  /** Which database, for messages. */
  readonly name: 'SQLite' | 'PostgreSQL';
  /**
   * Several nodes may share the database: writes are fenced by session leases, commits are
   * hinted by NOTIFY. False on SQLite: one process owns the file. Read once, where the module's
   * `Topology` is chosen (`persistence/connection/topology.provider.ts`): everything else asks
   * the topology (test/architecture/topology.spec.ts).
   */
  readonly shared: boolean;
  /**
   * Statements run in this thread (better-sqlite3): a statement holds the event loop and its
   * timers while it runs, so reads go in slices and no watchdog can time a silent store.
   */
  readonly inProcess: boolean;
  /** The statement that opens a writer's transaction (on SQLite one that takes the write lock now). */
  readonly begin: string;
  /** What the journal's INSERT ends with so the driver hands back the sequence ('' when it does anyway). */
  readonly insertReturning: string;
  /**
   * Statements are round trips to a server, each answer read in a turn of this process's event
   * loop (PostgreSQL): an append inserts first (one round trip for a new id, not two) and a
   * batch's consecutive appends go in one statement. False where statements run in this thread
   * (there an append's INSERT goes first too, its unique-index conflict caught).
   */
  readonly insertsFirst: boolean;
  /**
   * The journal's appends where {@link insertsFirst} (PostgreSQL; undefined elsewhere), over the
   * written `columns` in their order, `p` numbering the placeholders: `one` inserts a record unless
   * its id is journaled in its session already, answering its `sequence` (no row when skipped);
   * `many` inserts the rows of one array per column, in array order, skipping ids journaled
   * already, answering `sequence, session_id, idempotency_id` of each inserted.
   */
  insertFirstStatements(p: (index: number) => string, columns: readonly string[]): { one: string; many: string } | undefined;
  /** A statement that reads the schema: a file that is no database fails it. */
  readonly probe: string;
  /** The sequence an INSERT of {@link insertReturning} answered, as `manager.query` hands it back. */
  insertedSequence(result: unknown): number;
  /**
   * A LEFT JOIN of at most one row of `table` (as `alias`) meeting `on`, which may name the tables
   * joined before it, probed per row by index: never a plan that reads the table on part of `on`
   * and filters the rest (on PostgreSQL, whose planner does that on a fresh table, a LATERAL
   * subquery with LIMIT 1; on SQLite, which probes with every term already, a plain LEFT JOIN).
   */
  probeJoin(table: string, alias: string, on: string): string;
  /**
   * `column` in a WHERE term that must not choose an index of it (SQLite: `+column`, which leaves
   * the planner the table's own order and compares as the column does for text values, not for
   * numbers: it drops the column's affinity; PostgreSQL: the column as it is).
   */
  unindexed(column: string): string;
  /** The text of `key` of a JSON text column (null when absent or the column is not JSON). */
  jsonText(column: string, key: string): string;
  /** The in-process connection hot statements may run on directly (SQLite); undefined otherwise. */
  directConnection(dataSource: DataSource): SqliteConnection | undefined;
  /**
   * Options of a second, read-only data source on the same database, so reads never wait behind
   * a write batch: a SQLite file only (undefined in memory, and on PostgreSQL, whose pool reads),
   * the file the data source's connection really opened.
   */
  readOnlyOptions(dataSource: DataSource): DataSourceOptions | undefined;
  /**
   * Hands the sync of the write-ahead log to the writer (see `walOf`): COMMIT need not sync on the
   * event loop's thread, and the connection's own checkpoints stop at `autocheckpointPages`
   * (SQLite's pragmas; nothing where there is no WAL of the writer's).
   */
  writerSyncsWal(dataSource: DataSource, autocheckpointPages: number): void;
  /** Tells the other nodes on `channel`, inside the transaction (delivered only if it commits); nothing with one node. */
  notify(manager: EntityManager, channel: string, payload: string): Promise<void>;
  /**
   * Runs `work` (the migrations) holding this schema's migrations' lock where other processes may
   * run them too (PostgreSQL: an advisory lock on a connection of its own; `wait` is called
   * between tries while another process holds it, and may throw to give up); `work` alone where
   * one process owns the database (SQLite).
   */
  underMigrationsLock<T>(dataSource: DataSource, wait: () => Promise<void>, work: () => Promise<T>): Promise<T>;
  /**
   * One statement for the admin counts of every session and every loop of a transaction and, with
   * `notify`, the commit hint's NOTIFY, where every statement is a round trip (PostgreSQL:
   * unnest, a LATERAL probe, data-modifying CTEs); undefined where statements run in this thread.
   * `p` numbers the placeholders: the sessions' ids and last sequences, then the loop values in
   * the order `columns` names them, then the channel and the payload; `consumed` joins a
   * notification's consumed record `c` to it `j`.
   */
  batchedCounts(p: (index: number) => string, columns: readonly string[], consumed: string, notify: boolean): string | undefined;
  /**
   * The write-ahead log the writer syncs itself off the event loop's thread, and a thread of
   * its own checkpoints (a SQLite file, see `JournalDurability` and `WalCheckpointer`);
   * undefined where COMMIT is durable by itself (PostgreSQL) or nothing is (memory). Named after
   * the file the data source's (connected) connection really writes, as the database names it,
   * not the path as written: a sync of another path would cover nothing.
   */
  walOf(dataSource: DataSource): StoreWal | undefined;
  /**
   * Takes this process's ownership of the database of `options` before anything opens it, where
   * one process must own it (a SQLite file: `SqliteFileInUseError` when another process holds
   * it); undefined where nodes share it (PostgreSQL) or nothing is shared (memory).
   */
  own(options: DataSourceOptions): StoreOwnership | undefined;
  /**
   * Takes back, in the transaction that appended it, the journal record at `sequence` (the
   * health probe's), leaving no gap in the sequence where the database allows it.
   */
  takeBackAppend(manager: EntityManager, sequence: number): Promise<void>;
  /**
   * Runs a statement that may outlast the connection's bounds on one statement (a migration's
   * index build over the whole journal), on `runner` and in its transaction: on PostgreSQL
   * without the server's `statement_timeout` or the client's `query_timeout` for this statement
   * alone (they would cancel it, and the upgrade with it, at every start); on SQLite as any.
   */
  unboundedStatement(runner: QueryRunner, sql: string): Promise<void>;
  /** Gives a transaction's connection back after it ended well (a pooled one to its pool). */
  release(runner: QueryRunner): void;
  /** Gives up a connection that failed or stalled mid-query for good (SQLite's one connection stays). */
  discard(runner: QueryRunner): void;
}
