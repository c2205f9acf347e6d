import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ConsumeProcessNotificationHandler } from './commands/consume-process-notification/consume-process-notification.handler.js';
import { ConsumeProcessNotificationsHandler } from './commands/consume-process-notification/consume-process-notifications.handler.js';
import { DispatchProcessNotificationHandler } from './commands/dispatch-process-notification/dispatch-process-notification.handler.js';
import { NotifyProcessCompletionHandler } from './commands/notify-process-completion/notify-process-completion.handler.js';
import { PublishProcessLifecycleHandler } from './commands/publish-process-lifecycle/publish-process-lifecycle.handler.js';
import { OpenSessionHandler } from './commands/open-session/open-session.handler.js';
import { RotateSessionTokenHandler } from './commands/rotate-session-token/rotate-session-token.handler.js';
import { CloseSessionHandler } from './commands/close-session/close-session.handler.js';
import { OpenLoopHandler } from './commands/open-loop/open-loop.handler.js';
import { StopLoopHandler } from './commands/stop-loop/stop-loop.handler.js';
import { PruneJournalHandler } from './commands/prune-journal/prune-journal.handler.js';
import { AdvertiseNodeUrlHandler } from './commands/advertise-node-url/advertise-node-url.handler.js';
import { ReleaseSessionsHandler } from './commands/release-sessions/release-sessions.handler.js';
import { JournalRetention } from './journal/journal-retention.service.js';
import { JournalWriter } from './persistence/journal/journal-writer.service.js';
import { JournalHealth } from './persistence/health/journal-health.service.js';
import { JournalPruning } from './persistence/journal/journal-pruning.service.js';
import { JournalPages } from './persistence/pages/journal-pages.service.js';
import { RestoreReads } from './persistence/sessions/restore-reads.service.js';
import { SessionStore } from './persistence/sessions/session-store.service.js';
import { SessionCredentials } from './persistence/sessions/session-credentials.js';
import { TOPOLOGY_PROVIDER } from './persistence/connection/topology.provider.js';
import { StoreConnectionModule } from './persistence/connection/store-connection.module.js';
import {
  ASYNC_OPTIONS_TYPE,
  ConfigurableModuleClass,
  OPTIONS_TYPE,
  PROCESS_NOTIFICATIONS_OPTIONS,
} from './process-notifications.module-definition.js';
import { ProcessNotificationsOptionsModule } from './process-notifications-options.module.js';
import { ProcessNotificationsService } from './process-notifications.service.js';
import { LoopSaga } from './sagas/loop.saga.js';
import { ShutdownSignal } from './lifecycle/shutdown-signal.service.js';
import { Loops } from './loops/loops.service.js';
import { JournalRestore } from './restore/journal-restore.service.js';
import { Sessions } from './sessions/sessions.service.js';
import { JournalFeed } from './journal/journal-feed.service.js';
import { JournalNotifyListener } from './persistence/journal/journal-notify-listener.js';
import { SessionLeases } from './persistence/leases/session-leases.service.js';
import { SessionOwnership } from './cluster/session-ownership.service.js';
import { ProcessOutcomes } from './persistence/outcomes/process-outcomes.service.js';
import { RefusalStore } from './persistence/refusals/refusal-store.service.js';
import { AdminQueries } from './admin/admin-queries.service.js';
import { AdminReads } from './persistence/admin-reads/admin-reads.service.js';

/**
 * Journal-first delivery of process completion notifications to agent loops.
 * Import it once with {@link ProcessNotificationsModule.forRoot} or `forRootAsync`, then inject
 * {@link ProcessNotificationsService} (or use the command bus with the exported commands).
 */
@Module({
  imports: [CqrsModule],
  providers: [
    SessionLeases,
    TOPOLOGY_PROVIDER,
    JournalWriter,
    JournalHealth,
    JournalPruning,
    JournalPages,
    RestoreReads,
    SessionStore,
    SessionCredentials,
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
    OpenSessionHandler,
    RotateSessionTokenHandler,
    CloseSessionHandler,
    OpenLoopHandler,
    StopLoopHandler,
    PruneJournalHandler,
    AdvertiseNodeUrlHandler,
    ReleaseSessionsHandler,
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
  // its store connection (`StoreConnectionModule`) import, so the factory runs once.
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
      imports: [optionsModule, StoreConnectionModule.forOptions(optionsModule)],
    };
  }
}
