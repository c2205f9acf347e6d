import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConsumeProcessNotificationHandler } from './commands/consume-process-notification/consume-process-notification.handler.js';
import { ConsumeProcessNotificationsHandler } from './commands/consume-process-notification/consume-process-notifications.handler.js';
import { DispatchProcessNotificationHandler } from './commands/dispatch-process-notification/dispatch-process-notification.handler.js';
import { NotifyProcessCompletionHandler } from './commands/notify-process-completion/notify-process-completion.handler.js';
import { PublishProcessLifecycleHandler } from './commands/publish-process-lifecycle/publish-process-lifecycle.handler.js';
import { PN_CONNECTION } from './constants.js';
import { dataSourceOptionsFromUrl } from './persistence/data-source-options.js';
import { runMigrationsExclusively } from './persistence/migration-lock.js';
import { SchemaNewerThanCodeError } from './persistence/schema-newer-than-code.error.js';
import { JournalRetention } from './journal/journal-retention.service.js';
import { JournalWriter } from './persistence/journal-writer.service.js';
import {
  ASYNC_OPTIONS_TYPE,
  ConfigurableModuleClass,
  OPTIONS_TYPE,
  PROCESS_NOTIFICATIONS_OPTIONS,
} from './process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from './process-notifications-options.interface.js';
import { ProcessNotificationsOptionsModule } from './process-notifications-options.module.js';
import { ProcessNotificationsService } from './process-notifications.service.js';
import { LoopSaga } from './sagas/loop.saga.js';
import { ShutdownSignal } from './lifecycle/shutdown-signal.service.js';
import { Loops } from './loops/loops.service.js';
import { JournalRestore } from './restore/journal-restore.service.js';
import { Sessions } from './sessions/sessions.service.js';
import { JournalFeed } from './journal/journal-feed.service.js';
import { JournalNotifyListener } from './persistence/journal-notify-listener.js';
import { SessionLeases } from './persistence/session-leases.service.js';
import { SessionOwnership } from './cluster/session-ownership.service.js';
import { ProcessOutcomes } from './persistence/process-outcomes.service.js';
import { RefusalStore } from './persistence/refusal-store.service.js';
import { AdminQueries } from './admin/admin-queries.service.js';
import { AdminReads } from './persistence/admin-reads.service.js';

/**
 * Journal-first delivery of process completion notifications to agent loops.
 * Import it once with {@link ProcessNotificationsModule.forRoot} or `forRootAsync`, then inject
 * {@link ProcessNotificationsService} (or use the command bus with the exported commands).
 */
@Module({
  imports: [CqrsModule],
  providers: [
    SessionLeases,
    JournalWriter,
    JournalNotifyListener,
    JournalFeed,
    JournalRetention,
    SessionOwnership,
    Sessions,
    Loops,
    JournalRestore,
    ProcessOutcomes,
    ShutdownSignal,
    LoopSaga,
    NotifyProcessCompletionHandler,
    DispatchProcessNotificationHandler,
    ConsumeProcessNotificationHandler,
    ConsumeProcessNotificationsHandler,
    PublishProcessLifecycleHandler,
    ProcessNotificationsService,
    AdminReads,
    AdminQueries,
    RefusalStore,
  ],
  exports: [ProcessNotificationsService, AdminQueries, RefusalStore],
})
export class ProcessNotificationsModule extends ConfigurableModuleClass {
  /**
   * @param options database URL and loop capacity; every field has a default
   */
  static override forRoot(options: typeof OPTIONS_TYPE = {}): DynamicModule {
    return ProcessNotificationsModule.withDatabase(super.forRoot(options));
  }

  /**
   * @param options `useFactory`/`useClass`/`useExisting` resolving to the module options
   */
  static override forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    return ProcessNotificationsModule.withDatabase(super.forRootAsync(options));
  }

  // The generated options providers move into one options module that both this module and
  // its named TypeORM connection import, so the factory runs once.
  private static withDatabase(generated: DynamicModule): DynamicModule {
    const optionsModule: DynamicModule = {
      module: ProcessNotificationsOptionsModule,
      imports: generated.imports ?? [],
      providers: generated.providers ?? [],
      exports: [PROCESS_NOTIFICATIONS_OPTIONS],
    };
    return {
      ...generated,
      providers: [],
      imports: [
        optionsModule,
        TypeOrmModule.forRootAsync({
          name: PN_CONNECTION,
          imports: [optionsModule],
          inject: [PROCESS_NOTIFICATIONS_OPTIONS],
          // Migrations run here rather than through `migrationsRun`, under a lock (several nodes).
          useFactory: (options: ProcessNotificationsModuleOptions) => ({
            ...dataSourceOptionsFromUrl(options.databaseUrl),
            migrationsRun: false,
            // A schema newer than this code does not get better by waiting.
            toRetry: (error: unknown) => !(error instanceof SchemaNewerThanCodeError),
          }),
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            try {
              const applied = await runMigrationsExclusively(dataSource, { transaction: 'all' });
              // One line per migration applied, so an upgrade's schema change is in the log.
              const logger = new Logger('Migrations');
              for (const migration of applied) logger.log(`applied migration ${migration.name}`);
              if (applied.length > 0)
                logger.log(`schema up to date: ${applied.length} migration${applied.length === 1 ? '' : 's'} applied now`);
            } catch (error) {
              await dataSource.destroy();
              throw error;
            }
            return dataSource;
          },
        }),
      ],
    };
  }
}
