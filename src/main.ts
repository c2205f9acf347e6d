import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { serverConfigFromEnv } from './config/server-config.js';
import { createServerApp } from './server-app.js';

async function bootstrap(): Promise<void> {
  const config = serverConfigFromEnv();
  const app = await createServerApp(config);
  app.enableShutdownHooks();
  await app.listen(config.port);
  if (config.adminTokenGenerated) {
    // Printed once, on stdout, so that the operator can create the first session.
    process.stdout.write(`PN_ADMIN_TOKEN is not set; generated admin token for this run: ${config.adminToken}\n`);
  }
  // Never log database credentials.
  new Logger('Server').log(`Listening on port ${config.port} (database ${config.databaseUrl.replace(/\/\/[^/@]*@/, '//***@')})`);
}

bootstrap().catch((error: unknown) => {
  new Logger('Server').error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
