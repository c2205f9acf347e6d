import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { redactDatabaseUrl } from './config/database-url.js';
import { serverConfigFromEnv, type ServerConfig } from './config/server-config.js';
import { createRootLogger } from './logging/root-logger.js';
import { createServerApp } from './server-app.js';
import { GracefulShutdown, SHUTDOWN_SIGNALS } from './shutdown/graceful-shutdown.js';
import { checkDatabaseIsUsable, checkPortIsFree } from './startup/startup-checks.js';

// In-flight requests get this long to finish; a hard exit follows a little later in any case.
const SHUTDOWN_GRACE_MS = 10_000;
const HARD_EXIT_MS = SHUTDOWN_GRACE_MS + 5_000;

// Lines the operator must see whatever PN_LOG_LEVEL says (why the server did not start, the
// generated admin token, the port it listens on), in the same JSON-lines format as the rest.
const operatorLog = createRootLogger('info');

/**
 * Everything a bad setting can break is tried before Nest starts, in this order: the settings
 * themselves, the port, the database. So a server that cannot run ends at once with one line
 * naming the setting, and no migration has touched the database.
 */
async function checkedConfig(): Promise<ServerConfig> {
  const config = serverConfigFromEnv();
  await checkPortIsFree(config.port);
  await checkDatabaseIsUsable(config.databaseUrl);
  return config;
}

/** What the entry point hands the server: work to finish after it drained, before it exits. */
export interface ServerRun {
  /** Runs once the application is closed, before the process exits (e.g. flushing spans). */
  readonly beforeExit?: () => Promise<void>;
}

/** Starts the server (see `main.ts`, which loads this module only after tracing is set up). */
export async function startServer(run: ServerRun = {}): Promise<void> {
  await bootstrap(run).catch((error: unknown) => {
    // One line, no stack: the message names the setting and the reason.
    operatorLog.fatal((error instanceof Error ? error.message : String(error)).split('\n')[0]!);
    process.exit(1);
  });
}

async function bootstrap(run: ServerRun): Promise<void> {
  const config = await checkedConfig();
  const app = await createServerApp(config);
  const shutdown = new GracefulShutdown(app, SHUTDOWN_GRACE_MS, new Logger('Shutdown'));
  for (const signal of SHUTDOWN_SIGNALS) {
    process.on(signal, () => {
      // A hang in the shutdown itself must not hold the process forever.
      setTimeout(() => process.exit(1), HARD_EXIT_MS).unref();
      shutdown
        .shutdown(signal)
        .then(() => run.beforeExit?.())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            new Logger('Shutdown').error(error instanceof Error ? error.message : String(error));
            process.exit(1);
          },
        );
    });
  }
  // Every interface, as Node's own default (Fastify's is localhost only): `::` takes IPv4 too,
  // and where the host has no IPv6, 0.0.0.0.
  await app.listen(config.port, '::').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EAFNOSUPPORT' && error.code !== 'EADDRNOTAVAIL') throw error;
    return app.listen(config.port, '0.0.0.0');
  });
  if (config.adminTokenGenerated) {
    // Shown once, so that the operator can create the first session.
    operatorLog.warn(`PN_ADMIN_TOKEN is not set; generated admin token for this run: ${config.adminToken}`);
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  // Several nodes on PostgreSQL: where the others forward this node's sessions (no-op on SQLite).
  await app.get(ProcessNotificationsService).advertiseNodeUrl(config.nodeUrl ?? `http://127.0.0.1:${port}`);
  // Whatever the level: operators and scripts wait for this line.
  operatorLog.info({ context: 'Server' }, `Listening on port ${port} (database ${redactDatabaseUrl(config.databaseUrl)})`);
}
