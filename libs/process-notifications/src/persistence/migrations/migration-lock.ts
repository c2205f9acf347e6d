import { MigrationExecutor, type DataSource, type Migration } from 'typeorm';
import { SchemaNewerThanCodeError } from './schema-newer-than-code.error.js';
import { storeDialectOf } from '../dialects/store-dialects.js';

// Each try is a short statement (the connection's statement_timeout is a few seconds), repeated
// until the other process is done or this long has passed.
const RETRY_MS = 100;
const WAIT_MS = 60_000;

/**
 * Throws {@link SchemaNewerThanCodeError} when the database records a migration this code does
 * not know (TypeORM itself would ignore it and run the old code on the newer schema).
 */
async function refuseNewerSchema(dataSource: DataSource): Promise<void> {
  const known = new Set(dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name));
  const executed = await new MigrationExecutor(dataSource).getExecutedMigrations();
  const unknown = executed.filter((migration) => !known.has(migration.name)).map((migration) => migration.name);
  if (unknown.length > 0) throw new SchemaNewerThanCodeError(unknown);
}

/**
 * Runs the pending migrations of an initialised `dataSource`, serialised across processes: on
 * PostgreSQL under a session advisory lock, so that nodes started at the same instant on an empty
 * database run them one after the other (the second finds nothing left to do) instead of racing
 * to create the same tables. SQLite serves one process and needs no lock. Refuses a schema that
 * a newer release migrated ({@link SchemaNewerThanCodeError}) before changing anything.
 * Returns the migrations applied now, in order.
 */
export async function runMigrationsExclusively(
  dataSource: DataSource,
  options: { transaction?: 'all' | 'each' | 'none' } = {},
): Promise<Migration[]> {
  const deadline = Date.now() + WAIT_MS;
  const wait = async (): Promise<void> => {
    if (Date.now() > deadline) throw new Error(`another process has been running the migrations for over ${WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  };
  return storeDialectOf(dataSource).underMigrationsLock(dataSource, wait, async () => {
    await refuseNewerSchema(dataSource);
    return dataSource.runMigrations(options);
  });
}
