import { DataSource } from 'typeorm';
import { dataSourceOptionsFromUrl } from '../../libs/process-notifications/src/persistence/connection/data-source-options.js';
import { storeDialectOf } from '../../libs/process-notifications/src/persistence/dialects/store-dialects.js';
import { inFreshSchema } from '../support/postgres.js';

// Longer than the PostgreSQL connections' bounds on one statement (statement_timeout 3 s on the
// server, query_timeout 4 s in the client), as an index build over a large journal is.
const SLOW = 'SELECT pg_sleep(4.5)';

// On the server's own connection options, in a transaction as migrations run: a statement that
// outlasts the bounds fails as any statement, and runs to its end as an unbounded one, after which
// the transaction's statements are bounded again.
async function outlastsTheBounds(databaseUrl: string): Promise<void> {
  const dataSource = await new DataSource({ ...dataSourceOptionsFromUrl(databaseUrl), migrationsRun: false }).initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    await expect(runner.query(SLOW)).rejects.toThrow(/timeout|cancel/i);
    await runner.rollbackTransaction();

    await runner.startTransaction();
    const started = Date.now();
    await storeDialectOf(dataSource).unboundedStatement(runner, SLOW);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_400);
    expect(await runner.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '3s' }]);
    await expect(runner.query(SLOW)).rejects.toThrow(/timeout|cancel/i);
    if (runner.isTransactionActive) await runner.rollbackTransaction();
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}

describe('a migration statement longer than a statement may take (an index build)', () => {
  it('runs to its end on PostgreSQL, and the transaction is bounded again after it', async () => {
    await inFreshSchema(outlastsTheBounds);
  }, 30_000);
});
