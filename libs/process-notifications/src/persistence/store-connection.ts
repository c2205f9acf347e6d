import type { DataSource, QueryRunner } from 'typeorm';

/*
 * The one place where the library looks past TypeORM at the driver's own connection, and why.
 *
 * The writer sends BEGIN and COMMIT itself, and a caller hears success only when the store is
 * verifiably out of its transaction. TypeORM tracks a transaction flag of its own, which is wrong
 * exactly when it matters: SQLite rolls back by itself after SQLITE_FULL or SQLITE_IOERR, and a
 * failed COMMIT may leave the transaction open. So on SQLite the real state is read from
 * better-sqlite3 (`inTransaction`), reached through the driver's public `databaseConnection`.
 *
 * On PostgreSQL a connection that failed or stalled mid-query must not go back to the pool (a
 * stalled statement may still be queued on it). TypeORM's public `release()` returns it to the
 * pool, so the node-postgres client (what the runner's public `connect()` resolves to) is closed
 * first with its own public `end()`: node-postgres' pool never hands out a closed client again.
 */

/**
 * What the library uses of a better-sqlite3 connection: its real transaction state, statements
 * sent as they are, and rows streamed from a prepared statement. Typed here so that hosts on
 * PostgreSQL need no SQLite typings.
 */
export interface SqliteConnection {
  readonly open: boolean;
  readonly inTransaction: boolean;
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
}

/** A prepared statement of a {@link SqliteConnection}. */
export interface SqliteStatement {
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { lastInsertRowid: number | bigint };
  raw(): { iterate(...parameters: unknown[]): IterableIterator<unknown[]> };
}

/** The better-sqlite3 connection behind a TypeORM data source, or undefined on PostgreSQL. */
export function sqliteConnectionOf(dataSource: DataSource): SqliteConnection | undefined {
  if (dataSource.options.type !== 'better-sqlite3') return undefined;
  return (dataSource.driver as { databaseConnection?: SqliteConnection }).databaseConnection;
}

// What the writer needs of a node-postgres pooled client.
interface PostgresClient {
  end(): Promise<void>;
}

/**
 * Gives a PostgreSQL query runner's connection up for good: closed, then released, so the pool
 * drops it and opens a new one for the next transaction. Never throws.
 */
export async function discardPostgresConnection(runner: QueryRunner): Promise<void> {
  if (runner.isReleased) return;
  try {
    const client = (await runner.connect()) as PostgresClient;
    // Not awaited: a client with a stalled statement ends when its socket is destroyed.
    client.end().catch(() => undefined);
  } catch {
    // No connection was ever obtained: there is nothing to close.
  }
  await runner.release().catch(() => undefined);
}
