import { dataSourceOptionsFromUrl } from './data-source-options.js';
import { runMigrationsExclusively } from '../migrations/migration-lock.js';
import { OwnedDataSource } from './owned-data-source.js';
import { storeDialectOf } from '../dialects/store-dialects.js';

/** Runs one named step of {@link probeStore}: the caller may bound it (a deadline) or run it as it is. */
export type StoreProbeStep = <T>(what: string, work: Promise<T>) => Promise<T>;

/**
 * Opens the database of `url` without running migrations and asks it a question (on SQLite one
 * that reads the schema, so a file that is not a SQLite database fails too), then closes it.
 * Throws the driver's error of the first step that fails; a failure to close is ignored. A SQLite
 * file another process owns fails the opening (`SqliteFileInUseError`).
 */
export async function probeStore(url: string, step: StoreProbeStep = (_what, work) => work): Promise<void> {
  const dataSource = new OwnedDataSource({ ...dataSourceOptionsFromUrl(url), migrationsRun: false });
  try {
    await step('opening the database', dataSource.initialize());
    await step('the first query', dataSource.query(storeDialectOf(dataSource).probe));
  } finally {
    if (dataSource.isInitialized) await step('closing the database', dataSource.destroy()).catch(() => undefined);
  }
}

/**
 * Applies the schema migrations the database of `url` lacks, each in its own transaction, under
 * the migration lock (see `runMigrationsExclusively`); the names of those applied, in order. A
 * SQLite file a server (or another migration) owns is refused (`SqliteFileInUseError`).
 */
export async function migrateStore(url: string): Promise<string[]> {
  const dataSource = new OwnedDataSource({ ...dataSourceOptionsFromUrl(url), migrationsRun: false });
  await dataSource.initialize();
  try {
    return (await runMigrationsExclusively(dataSource, { transaction: 'each' })).map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
