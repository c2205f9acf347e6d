import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ProcessNotificationsModule } from 'nestjs-process-notifications';
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { SERVER_CONFIG, type ServerConfig } from './config/server-config.js';
import { HealthController } from './health/health.controller.js';
import { BearerAuthGuard } from './http/bearer-auth.guard.js';
import { ProblemDetailsFilter } from './http/problem-details.filter.js';
import { ROOT_LOGGER } from './logging/root-logger.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { MetricsService } from './metrics/metrics.service.js';
import { OwnerForwarding } from './cluster/owner-forwarding.service.js';
import { JournalController } from './sessions/journal.controller.js';
import { LoopsController } from './sessions/loops.controller.js';
import { ProcessLifecycleController } from './sessions/process-lifecycle.controller.js';
import { ProcessNotificationsController } from './sessions/process-notifications.controller.js';
import { SessionEventStream } from './sessions/session-event-stream.service.js';
import { SessionsController } from './sessions/sessions.controller.js';
import { ShutdownState } from './shutdown/shutdown-state.js';
import { AdminController } from './admin/admin.controller.js';
import { RefusalLog } from './refusals/refusal-log.service.js';
import { RefusedWrites } from './sessions/refused-writes.service.js';
import { WhoamiController } from './admin/whoami.controller.js';

/** The server: REST API v1 over the process-notifications module, its metrics and request logs. */
@Module({})
export class AppModule {
  /**
   * @param config see `serverConfigFromEnv()`; tests pass their own (e.g. `sqlite::memory:`)
   * @param logger the root logger: request lines and the application's logs go through it
   */
  static forRoot(config: ServerConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ProcessNotificationsModule.forRoot({
          databaseUrl: config.databaseUrl,
          loopCapacity: config.loopCapacity,
          maxLoopsPerSession: config.maxLoopsPerSession,
          journalTimeoutMs: config.journalTimeoutMs,
          retentionDays: config.retentionDays,
          leaseTtlMs: config.leaseTtlMs,
          nodeUrl: config.nodeUrl,
          // Every node of a cluster has the admin token, so a cursor one gave out opens on another.
          cursorSecret: createHmac('sha256', config.adminToken).update('pn admin list cursors').digest('base64url'),
        }),
      ],
      controllers: [
        SessionsController,
        LoopsController,
        ProcessNotificationsController,
        ProcessLifecycleController,
        JournalController,
        AdminController,
        WhoamiController,
        HealthController,
        MetricsController,
      ],
      providers: [
        { provide: SERVER_CONFIG, useValue: config },
        { provide: ROOT_LOGGER, useValue: logger },
        { provide: APP_GUARD, useClass: BearerAuthGuard },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        SessionEventStream,
        MetricsService,
        OwnerForwarding,
        ShutdownState,
        RefusalLog,
        RefusedWrites,
      ],
    };
  }
}
