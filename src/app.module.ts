import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ProcessNotificationsModule } from 'nestjs-process-notifications';
import { SERVER_CONFIG, type ServerConfig } from './config/server-config.js';
import { HealthController } from './health/health.controller.js';
import { BearerAuthGuard } from './http/bearer-auth.guard.js';
import { ProblemDetailsFilter } from './http/problem-details.filter.js';
import { JournalController } from './sessions/journal.controller.js';
import { LoopsController } from './sessions/loops.controller.js';
import { ProcessLifecycleController } from './sessions/process-lifecycle.controller.js';
import { ProcessNotificationsController } from './sessions/process-notifications.controller.js';
import { SessionEventStream } from './sessions/session-event-stream.service.js';
import { SessionsController } from './sessions/sessions.controller.js';

/** The server: REST API v1 over the process-notifications module. */
@Module({})
export class AppModule {
  /** @param config see `serverConfigFromEnv()`; tests pass their own (e.g. `sqlite::memory:`) */
  static forRoot(config: ServerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ProcessNotificationsModule.forRoot({
          databaseUrl: config.databaseUrl,
          loopCapacity: config.loopCapacity,
          maxLoopsPerSession: config.maxLoopsPerSession,
          journalTimeoutMs: config.journalTimeoutMs,
        }),
      ],
      controllers: [
        SessionsController,
        LoopsController,
        ProcessNotificationsController,
        ProcessLifecycleController,
        JournalController,
        HealthController,
      ],
      providers: [
        { provide: SERVER_CONFIG, useValue: config },
        { provide: APP_GUARD, useClass: BearerAuthGuard },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        SessionEventStream,
      ],
    };
  }
}
