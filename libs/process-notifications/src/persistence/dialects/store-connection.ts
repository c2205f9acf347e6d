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
 * pool, so the node-postgres client (what the runner's public `connect()` resolves to) is first
 * marked as ending with its own public `end()`: node-postgres' pool drops an ending client at
 * once on release and never hands it out again. `end()` alone is a goodbye that waits for the
 * server to close the socket, which a stalled (or partitioned) server never does; so the socket
 * (`client.connection.stream`, public in node-postgres' typings) is destroyed too. Nothing in
 * the discard waits for the server's answer. And a migration's index build over a large journal
 * outlasts the client's per-query timeout, so it is sent on the same client with a timeout of its
 * own (`queryWithoutClientTimeout`).
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

// What the writer needs of a node-postgres pooled client.
interface PostgresClient {
  end(): Promise<void>;
  readonly connection: { readonly stream: { destroy(): void } };
  query(config: { text: string; query_timeout: number }): Promise<unknown>;
}

// The longest timer Node keeps (about 24.8 days): node-postgres reads 0 as "the connection's own".
const UNBOUNDED_MS = 2 ** 31 - 1;

/**
 * Sends `sql` on the runner's node-postgres client without the client's `query_timeout` (its own
 * per-query setting, public in node-postgres), for a statement meant to outlast it (a migration's
 * index build). The server's `statement_timeout` is the caller's to lift.
 */
export async function queryWithoutClientTimeout(runner: QueryRunner, sql: string): Promise<void> {
  const client = (await runner.connect()) as PostgresClient;
  await client.query({ text: sql, query_timeout: UNBOUNDED_MS });
}

/**
 * node-postgres' pool of a PostgreSQL data source (TypeORM's driver's `master`), for a client held
 * apart from TypeORM's query runners: the leases' heartbeat, the commit hints' LISTEN connection.
 */
export function postgresPool<Client>(dataSource: DataSource): { connect(): Promise<Client> } {
  return (dataSource.driver as unknown as { master: { connect(): Promise<Client> } }).master;
}

/**
 * Gives a PostgreSQL query runner's connection up for good: marked as ending, its socket
 * destroyed, then released, so the pool drops it and opens a new one for the next transaction.
 * Bounded whatever the server does (nothing waits for its answer); never throws.
 */
export async function discardPostgresConnection(runner: QueryRunner): Promise<void> {
  if (runner.isReleased) return;
  try {
    const client = (await runner.connect()) as PostgresClient;
    // Not awaited: it resolves when the socket has closed. It marks the client as ending first,
    // which is what makes the pool drop it on release.
    client.end().catch(() => undefined);
    client.connection.stream.destroy();
  } catch {
    // No connection was ever obtained: there is nothing to close.
  }
  await runner.release().catch(() => undefined);
}
