import type { DataSource, DataSourceOptions, EntityManager, QueryRunner } from 'typeorm';
import { discardPostgresConnection, queryWithoutClientTimeout, type SqliteConnection } from './store-connection.js';
import type { StoreDialect, StoreOwnership, StoreWal } from './store-dialect.js';

// One advisory lock key for "the schema migrations of this schema": a constant namespace and
// the schema's name, so that processes on other schemas of the same database do not wait.
const MIGRATIONS_LOCK_KEY = "hashtext('nestjs-process-notifications:migrations:' || current_schema())";

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

  // The id is looked up in the statement, before a sequence is drawn (ON CONFLICT alone would draw
  // one for a retry: a gap in the numbers); ON CONFLICT still skips a row a concurrent transaction
  // wrote. Casts: PostgreSQL infers no parameter type here.
  insertFirstStatements(p: (index: number) => string, columns: readonly string[]): { one: string; many: string } {
    const typed = columns.map((column, i) => `${p(i)}::${column === 'payload' ? 'text' : 'varchar'}`);
    const one = `INSERT INTO pn_journal (${columns.join(', ')}) SELECT ${typed.join(', ')}
      WHERE NOT EXISTS (SELECT 1 FROM pn_journal WHERE session_id = ${typed[columns.indexOf('session_id')]} AND idempotency_id = ${typed[columns.indexOf('idempotency_id')]})
      ON CONFLICT (session_id, idempotency_id) DO NOTHING RETURNING sequence`;
    // A batch's appends in one statement (one round trip however many), rows in array order, so
    // sequences in that order too; ids already journaled are skipped (one index probe each).
    const many = `INSERT INTO pn_journal (${columns.join(', ')})
      SELECT ${columns.map((column) => `v.${column}`).join(', ')}
      FROM unnest(${typed.map((value) => `${value}[]`).join(', ')})
        WITH ORDINALITY AS v(${columns.join(', ')}, position)
      ${this.probeJoin('pn_journal', 'j', 'j.session_id = v.session_id AND j.idempotency_id = v.idempotency_id')}
      WHERE j.sequence IS NULL ORDER BY v.position
      ON CONFLICT (session_id, idempotency_id) DO NOTHING RETURNING sequence, session_id, idempotency_id`;
    return { one, many };
  }

  unindexed(column: string): string {
    return column;
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

  async notify(manager: EntityManager, channel: string, payload: string): Promise<void> {
    await manager.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  async underMigrationsLock<T>(dataSource: DataSource, wait: () => Promise<void>, work: () => Promise<T>): Promise<T> {
    // The lock belongs to one connection: taken and released on the same one.
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      while (!(await this.tryLockMigrations(runner))) await wait();
      try {
        return await work();
      } finally {
        await runner.query(`SELECT pg_advisory_unlock(${MIGRATIONS_LOCK_KEY})`);
      }
    } finally {
      await runner.release();
    }
  }

  private async tryLockMigrations(runner: QueryRunner): Promise<boolean> {
    const [{ locked }] = (await runner.query(`SELECT pg_try_advisory_lock(${MIGRATIONS_LOCK_KEY}) AS locked`)) as [{ locked: boolean }];
    return locked;
  }

  // A loop with something consumed takes the next oldest from its current oldest on (read before
  // this statement's update), any other keeps an oldest it has. Sessions, loops and the hint are
  // one statement: the CTEs run once each, whatever the outer SELECT reads, on the statement's
  // snapshot (the loops' probe sees the transaction's inserts, never the sessions' update, which
  // it does not read), and NOTIFY is delivered only if the transaction commits.
  batchedCounts(p: (index: number) => string, columns: readonly string[], consumed: string, notify: boolean): string {
    const types = ['varchar', 'varchar', 'int', 'boolean', 'bigint', 'varchar'];
    const v = (i: number) => p(i + 2);
    const loops = `UPDATE pn_loops l SET unconsumed = l.unconsumed + v.delta,
        oldest_unconsumed_sequence = CASE WHEN v.consumed THEN n.sequence ELSE COALESCE(l.oldest_unconsumed_sequence, v.first_sequence) END,
        oldest_unconsumed_at = CASE WHEN v.consumed THEN n.created_at ELSE COALESCE(l.oldest_unconsumed_at, v.first_at) END
      FROM unnest(${types.map((type, i) => `${v(i)}::${type}[]`).join(', ')}) AS v(${columns.join(', ')})
      LEFT JOIN LATERAL (SELECT j.sequence, j.created_at FROM pn_journal j ${this.probeJoin('pn_journal', 'c', consumed)}
        WHERE v.consumed AND j.session_id = v.session_id AND j.loop_id = v.loop_id AND j.kind = 'process_notification'
          AND j.sequence >= COALESCE((SELECT o.oldest_unconsumed_sequence FROM pn_loops o
            WHERE o.session_id = v.session_id AND o.loop_id = v.loop_id), v.first_sequence)
          AND c.sequence IS NULL
        ORDER BY j.sequence LIMIT 1) n ON true
      WHERE l.session_id = v.session_id AND l.loop_id = v.loop_id`;
    // Sixteen sessions in one transaction cost one round trip, as one session does (issue 46).
    const sessions = `UPDATE pn_sessions s SET last_sequence = v.last_sequence
      FROM unnest(${p(0)}::varchar[], ${p(1)}::bigint[]) AS v(session_id, last_sequence)
      WHERE s.session_id = v.session_id AND s.last_sequence < v.last_sequence`;
    const hint = notify ? `pg_notify(${p(columns.length + 2)}, ${p(columns.length + 3)})` : 'NULL';
    return `WITH sessions AS (${sessions}), loops AS (${loops}) SELECT ${hint} AS hint`;
  }

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

  // The server's bound is lifted around the statement and put back after it (for the
  // transaction, or the session outside one); the client's is the statement's own
  // (node-postgres takes a per-query `query_timeout`).
  async unboundedStatement(runner: QueryRunner, sql: string): Promise<void> {
    const scope = runner.isTransactionActive ? 'LOCAL ' : '';
    const [{ statement_timeout: bound }] = (await runner.query('SHOW statement_timeout')) as [{ statement_timeout: string }];
    await runner.query(`SET ${scope}statement_timeout = 0`);
    try {
      await queryWithoutClientTimeout(runner, sql);
    } finally {
      // In a failed transaction this fails too, and the rollback restores the bound.
      await runner.query(`SET ${scope}statement_timeout = '${bound.replace(/'/g, "''")}'`).catch(() => undefined);
    }
  }

  release(runner: QueryRunner): void {
    if (!runner.isReleased) void runner.release().catch(() => undefined);
  }

  // A stalled statement may still be queued on it: never pooled again (see store-connection.ts).
  discard(runner: QueryRunner): void {
    void discardPostgresConnection(runner);
  }
}
