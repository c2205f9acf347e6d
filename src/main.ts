import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { serverConfigFromEnv } from './config/server-config.js';
import { createServerApp } from './server-app.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function bootstrap(): Promise<void> {
  const config = serverConfigFromEnv();
  const app = await createServerApp(config);
  app.enableShutdownHooks();
  // Graceful shutdown lets in-flight requests finish; one that hangs must not hold the process.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref());
  }
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
