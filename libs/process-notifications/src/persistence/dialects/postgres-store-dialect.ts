import type { DataSourceOptions, EntityManager, QueryRunner } from 'typeorm';
import { discardPostgresConnection, type SqliteConnection } from './store-connection.js';
import type { StoreDialect, StoreOwnership, StoreWal } from './store-dialect.js';

/** PostgreSQL through node-postgres: several nodes, a pool, statements on the server. */
export class PostgresStoreDialect implements StoreDialect {
  readonly name = 'PostgreSQL';
  readonly shared = true;
  readonly inProcess = false;
  readonly begin = 'BEGIN';
  readonly insertReturning = ' RETURNING sequence';
  readonly probe = 'SELECT 1';
  readonly insertsFirst = true;

  insertedSequence(result: unknown): number {
    return Number((result as Array<{ sequence: number | string }>)[0]!.sequence);
  }

  probeJoin(table: string, alias: string, on: string): string {
    return `LEFT JOIN LATERAL (SELECT * FROM ${table} ${alias} WHERE ${on} LIMIT 1) ${alias} ON true`;
  }

  jsonText(column: string, key: string): string {
    return `(${column}::jsonb ->> '${key}')`;
  }

  directConnection(): SqliteConnection | undefined {
    return undefined;
  }

  // The server syncs its own log.
  writerSyncsWal(): void {}

  // The pool's other connections read while a batch runs.
  readOnlyOptions(): DataSourceOptions | undefined {
    return undefined;
  }

  // COMMIT returns once the server made it durable (synchronous_commit = on).
  walOf(): StoreWal | undefined {
    return undefined;
  }

  // Many nodes share the database, by design (leases fence their writes).
  own(): StoreOwnership | undefined {
    return undefined;
  }

  // A sequence's numbers are never given back on PostgreSQL: a gap stays (records are read in order, never counted).
  async takeBackAppend(manager: EntityManager, sequence: number): Promise<void> {
    await manager.query('DELETE FROM pn_journal WHERE sequence = $1', [sequence]);
  }

  release(runner: QueryRunner): void {
    if (!runner.isReleased) void runner.release().catch(() => undefined);
  }

  // A stalled statement may still be queued on it: never pooled again (see store-connection.ts).
  discard(runner: QueryRunner): void {
    void discardPostgresConnection(runner);
  }
}
