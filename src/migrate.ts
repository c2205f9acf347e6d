import 'reflect-metadata';
import { dataSourceOptionsFromUrl } from 'nestjs-process-notifications';
import { DataSource } from 'typeorm';
import { redactDatabaseUrl } from './config/database-url.js';
import { serverConfigFromEnv } from './config/server-config.js';
import { createRootLogger } from './logging/root-logger.js';
import { checkDatabaseIsUsable } from './startup/startup-checks.js';

// `npm run migration:run`: the schema migrations on PN_DATABASE_URL, without starting the
// server, logging one line per migration applied rather than every SQL statement (as the
// TypeORM CLI does).
const logger = createRootLogger('info');

async function migrate(): Promise<void> {
  const { databaseUrl } = serverConfigFromEnv();
  await checkDatabaseIsUsable(databaseUrl);
  const dataSource = new DataSource({ ...dataSourceOptionsFromUrl(databaseUrl), migrationsRun: false });
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    for (const migration of applied) logger.info(`applied migration ${migration.name}`);
    logger.info(`schema of ${redactDatabaseUrl(databaseUrl)} is up to date (${applied.length} migrations applied now)`);
  } finally {
    await dataSource.destroy();
  }
}

migrate().catch((error: unknown) => {
  logger.fatal((error instanceof Error ? error.message : String(error)).split('\n')[0]!);
  process.exit(1);
});
