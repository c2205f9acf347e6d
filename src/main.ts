import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { serverConfigFromEnv } from './config/server-config.js';
import { createServerApp } from './server-app.js';
import { GracefulShutdown, SHUTDOWN_SIGNALS } from './shutdown/graceful-shutdown.js';

// In-flight requests get this long to finish; a hard exit follows a little later in any case.
const SHUTDOWN_GRACE_MS = 10_000;
const HARD_EXIT_MS = SHUTDOWN_GRACE_MS + 5_000;

async function bootstrap(): Promise<void> {
  const config = serverConfigFromEnv();
  const app = await createServerApp(config);
  const shutdown = new GracefulShutdown(app, SHUTDOWN_GRACE_MS, new Logger('Shutdown'));
  for (const signal of SHUTDOWN_SIGNALS) {
    process.on(signal, () => {
      // A hang in the shutdown itself must not hold the process forever.
      setTimeout(() => process.exit(1), HARD_EXIT_MS).unref();
      shutdown.shutdown(signal).then(
        () => process.exit(0),
        (error: unknown) => {
          new Logger('Shutdown').error(error instanceof Error ? error.message : String(error));
          process.exit(1);
        },
      );
    });
  }
  await app.listen(config.port);
  if (config.adminTokenGenerated) {
    // Printed once, on stdout, so that the operator can create the first session.
    process.stdout.write(`PN_ADMIN_TOKEN is not set; generated admin token for this run: ${config.adminToken}\n`);
  }
  // Never log database credentials.
  const { port } = app.getHttpServer().address() as AddressInfo;
  new Logger('Server').log(`Listening on port ${port} (database ${config.databaseUrl.replace(/\/\/[^/@]*@/, '//***@')})`);
}

bootstrap().catch((error: unknown) => {
  new Logger('Server').error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
