import type { DataSource } from 'typeorm';

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
  return (dataSource.driver as unknown as { databaseConnection?: SqliteConnection }).databaseConnection;
}
