import { dataSourceOptionsFromUrl } from 'nestjs-process-notifications';
import { DataSource } from 'typeorm';

/**
 * Takes migrations back, newest first, through the one named: the database as the version before
 * that migration left it (for upgrade tests). Fails if that migration was never run.
 */
export async function revertThrough(databaseUrl: string, name: string): Promise<void> {
  const dataSource = await new DataSource({ ...dataSourceOptionsFromUrl(databaseUrl), migrationsRun: false }).initialize();
  try {
    for (;;) {
      const [newest] = (await dataSource.query('SELECT name FROM migrations ORDER BY timestamp DESC LIMIT 1')) as Array<{ name: string }>;
      if (!newest) throw new Error(`${name} was never run`);
      await dataSource.undoLastMigration();
      if (newest.name === name) return;
    }
  } finally {
    await dataSource.destroy();
  }
}
