import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { redactDatabaseUrl } from './config/database-url.js';
import { serverConfigFromEnv, type ServerConfig } from './config/server-config.js';
import { createLogDestination, createRootLogger, flushLogs } from './logging/root-logger.js';
import { createServerApp } from './server-app.js';
import { GracefulShutdown, SHUTDOWN_SIGNALS } from './shutdown/graceful-shutdown.js';
import { checkDatabaseIsUsable, checkPortIsFree, withDeadline } from './startup/startup-checks.js';

// In-flight requests get this long to finish; a hard exit follows a little later in any case.
const SHUTDOWN_GRACE_MS = 10_000;
const HARD_EXIT_MS = SHUTDOWN_GRACE_MS + 5_000;

// One asynchronous destination for every line of the process, flushed before it exits.
const destination = createLogDestination();
// Lines the operator must see whatever PN_LOG_LEVEL says (why the server did not start, the
// generated admin token, the port it listens on), in the same JSON-lines format as the rest.
const operatorLog = createRootLogger('info', destination);

// Every exit waits for the lines logged before it (within a bound), so none is lost.
async function exitAfterFlush(code: number): Promise<never> {
  await flushLogs(operatorLog);
  process.exit(code);
}

// A fatal error anywhere is one line, written before the process ends.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (error: unknown) => {
    operatorLog.fatal({ err: error }, `${event}: ${error instanceof Error ? error.message : String(error)}`);
    void exitAfterFlush(1);
  });
}

/**
 * Everything a bad setting can break is tried before Nest starts, in this order: the settings
 * themselves, the port, the database. So a server that cannot run ends at once with one line
 * naming the setting, and no migration has touched the database.
 */
async function checkedConfig(): Promise<ServerConfig> {
  const config = serverConfigFromEnv();
  // Each check has a deadline of its own; together they stay well within 10 s.
  await withDeadline(
    'the start-up checks',
    checkPortIsFree(config.port).then(() => checkDatabaseIsUsable(config.databaseUrl)),
    8_000,
  );
  return config;
}

async function bootstrap(): Promise<void> {
  const config = await checkedConfig();
  const app = await createServerApp(config, { logger: createRootLogger(config.logLevel, destination) });
  const shutdown = new GracefulShutdown(app, SHUTDOWN_GRACE_MS, new Logger('Shutdown'));
  for (const signal of SHUTDOWN_SIGNALS) {
    process.on(signal, () => {
      // A hang in the shutdown itself must not hold the process forever.
      setTimeout(() => void exitAfterFlush(1), HARD_EXIT_MS).unref();
      shutdown.shutdown(signal).then(
        () => exitAfterFlush(0),
        (error: unknown) => {
          new Logger('Shutdown').error(error instanceof Error ? error.message : String(error));
          return exitAfterFlush(1);
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
  const { port } = app.getHttpServer().address() as AddressInfo;
  // Several nodes on PostgreSQL: where the others forward this node's sessions (no-op on SQLite).
  await app.get(ProcessNotificationsService).advertiseNodeUrl(config.nodeUrl ?? `http://127.0.0.1:${port}`);
  // Whatever the level: operators and scripts wait for this line.
  operatorLog.info({ context: 'Server' }, `Listening on port ${port} (database ${redactDatabaseUrl(config.databaseUrl)})`);
  if (config.adminTokenGenerated) {
    // Printed once, on a line of its own after the start-up lines, so that the operator can create
    // the first session of a trial. It changes on every start: anything else sets PN_ADMIN_TOKEN.
    operatorLog.warn(
      { context: 'Server', generated_admin_token: config.adminToken },
      'PN_ADMIN_TOKEN is not set: generated an admin token for this run only (set PN_ADMIN_TOKEN for anything but a trial)',
    );
  }
}

bootstrap().catch((error: unknown) => {
  // One line, no stack: the message names the setting and the reason.
  operatorLog.fatal((error instanceof Error ? error.message : String(error)).split('\n')[0]!);
  void exitAfterFlush(1);
});
