import { createRequire } from 'node:module';
import type { DataSource, DataSourceOptions, EntityManager, QueryRunner } from 'typeorm';
import type { SqliteConnection } from './store-connection.js';
import { SqliteFileLock, type SqliteLockDriver } from './sqlite-file-lock.js';
import type { StoreDialect, StoreOwnership, StoreWal } from './store-dialect.js';

/** SQLite through better-sqlite3: one process, one connection, statements in this thread. */
export class SqliteStoreDialect implements StoreDialect {
  readonly name = 'SQLite';
  readonly shared = false;
  readonly inProcess = true;
  // IMMEDIATE takes the write lock now, so a concurrent process makes BEGIN wait
  // (busy_timeout), never a statement halfway through the batch.
  readonly begin = 'BEGIN IMMEDIATE';
  // SQLite hands back the rowid (the sequence) itself, 3 to 5 µs cheaper per insert than
  // materialising a RETURNING row (measured with better-sqlite3).
  readonly insertReturning = '';
  // Reads the schema, so a file that is not a SQLite database fails here.
  readonly probe = 'SELECT count(*) FROM sqlite_master';
  // Statements run in this thread, not round trips: no statement that skips a journaled id, and no
  // batch's appends in one (an append's plain INSERT goes first, its unique-index conflict caught:
  // JournalRows.insertUnlessConflicting).
  readonly insertsFirst = false;

  // No batched appends: each is its own INSERT in this thread.
  insertFirstStatements(): undefined {
    return undefined;
  }

  insertedSequence(result: unknown): number {
    return Number(result);
  }

  unindexed(column: string): string {
    return `+${column}`;
  }

  probeJoin(table: string, alias: string, on: string): string {
    return `LEFT JOIN ${table} ${alias} ON ${on}`;
  }

  jsonText(column: string, key: string): string {
    return `json_extract(${column}, '$.${key}')`;
  }

  /**
   * better-sqlite3's own connection, reached through the driver's public `databaseConnection`:
   * its real transaction state, and statements without TypeORM's wrapper (see store-connection.ts).
   */
  directConnection(dataSource: DataSource): SqliteConnection | undefined {
    return (dataSource.driver as { databaseConnection?: SqliteConnection }).databaseConnection;
  }

  writerSyncsWal(dataSource: DataSource, autocheckpointPages: number): void {
    this.directConnection(dataSource)?.exec(`PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = ${autocheckpointPages}`);
  }

  // One process: no other node to tell, to wait for, or to save round trips to.
  async notify(): Promise<void> {}

  underMigrationsLock<T>(_dataSource: DataSource, _wait: () => Promise<void>, work: () => Promise<T>): Promise<T> {
    return work();
  }

  // Statements run in this thread, bounded by nothing but themselves.
  async unboundedStatement(runner: QueryRunner, sql: string): Promise<void> {
    await runner.query(sql);
  }

  batchedCounts(): undefined {
    return undefined;
  }

  walOf(dataSource: DataSource): StoreWal | undefined {
    const database = this.realFileOf(dataSource);
    if (database === undefined) return undefined;
    return { database, wal: `${database}-wal`, driver: createRequire(import.meta.url).resolve('better-sqlite3') };
  }

  // WAL lets a second, read-only connection read the last commit while a batch runs.
  readOnlyOptions(dataSource: DataSource): DataSourceOptions | undefined {
    const database = this.realFileOf(dataSource);
    if (database === undefined) return undefined;
    const { options } = dataSource;
    return {
      type: 'better-sqlite3',
      database,
      readonly: true,
      entities: options.entities,
      synchronize: false,
      migrationsRun: false,
      logging: false,
      prepareDatabase: (db: { pragma(source: string): unknown }) => {
        db.pragma('busy_timeout = 2000');
      },
    };
  }

  own(options: DataSourceOptions): StoreOwnership | undefined {
    const database = fileOf(options);
    if (database === undefined) return undefined;
    // Loaded here, not imported: better-sqlite3 is an optional peer, for hosts on SQLite.
    return SqliteFileLock.acquire(database, createRequire(import.meta.url)('better-sqlite3') as SqliteLockDriver);
  }

  /**
   * The file SQLite really opened for a data source's connection, as SQLite names it (`PRAGMA
   * database_list`): absolute, its symbolic links and `..` segments resolved on the file system
   * (the unix VFS follows a linked path to the real file, and names the WAL `<that file>-wal`), a
   * relative path taken against the directory of the moment the connection opened. The path as
   * written may name another file (`<link>-wal` does not exist), or another one later (after a
   * `chdir`). Undefined in memory.
   */
  private realFileOf(dataSource: DataSource): string | undefined {
    if (fileOf(dataSource.options) === undefined) return undefined;
    const connection = this.directConnection(dataSource);
    if (!connection) throw new Error('the SQLite data source is not connected: its file cannot be named');
    const [main] = connection.prepare('PRAGMA database_list').all() as Array<{ name: string; file: string }>;
    if (!main?.file) throw new Error(`SQLite names no file for ${String(fileOf(dataSource.options))}`);
    return main.file;
  }

  async takeBackAppend(manager: EntityManager, sequence: number): Promise<void> {
    await manager.query('DELETE FROM pn_journal WHERE sequence = ?', [sequence]);
    // AUTOINCREMENT moved on; move it back so the probe leaves no gap in the sequence.
    await manager.query("UPDATE sqlite_sequence SET seq = seq - 1 WHERE name = 'pn_journal'");
  }

  // The one shared connection is never released: it is the database.
  release(): void {}

  discard(): void {}
}

// The database file of SQLite options; undefined in memory.
function fileOf(options: DataSourceOptions): string | undefined {
  const { database } = options as { database?: unknown };
  return typeof database === 'string' && database !== ':memory:' ? database : undefined;
}
