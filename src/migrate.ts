import 'reflect-metadata';
import { migrateStore } from 'nestjs-process-notifications';
import { pino } from 'pino';
import { redactDatabaseUrl } from './config/database-url.js';
import { serverConfigFromEnv } from './config/server-config.js';
import { createRootLogger } from './logging/root-logger.js';
import { checkDatabaseIsUsable } from './startup/startup-checks.js';

// `npm run migration:run`: the schema migrations on PN_DATABASE_URL, without starting the
// server, logging one line per migration applied rather than every SQL statement (as the
// TypeORM CLI does).
// Synchronous: a short run whose every line matters, ended by process.exit().
const logger = createRootLogger('info', pino.destination({ dest: 1, sync: true }));

async function migrate(): Promise<void> {
  const { databaseUrl } = serverConfigFromEnv();
  await checkDatabaseIsUsable(databaseUrl);
  const applied = await migrateStore(databaseUrl);
  for (const name of applied) logger.info(`applied migration ${name}`);
  logger.info(`schema of ${redactDatabaseUrl(databaseUrl)} is up to date (${applied.length} migrations applied now)`);
}

migrate().catch((error: unknown) => {
  logger.fatal((error instanceof Error ? error.message : String(error)).split('\n')[0]!);
  process.exit(1);
});
