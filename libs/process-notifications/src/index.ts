// The public API of the process-notifications library. Nothing else is imported from outside.
export { ProcessNotificationsModule } from './process-notifications.module.js';
export type { ProcessNotificationsModuleOptions } from './process-notifications-options.interface.js';
export {
  DEFAULT_LEASE_TTL_MS,
  DEFAULT_LOOP_CAPACITY,
  DEFAULT_MAX_LOOPS_PER_SESSION,
  DEFAULT_RETENTION_DAYS,
} from './process-notifications.module-definition.js';
export { DEFAULT_JOURNAL_TIMEOUT_MS, type JournalCommit } from './persistence/journal/journal-writer.service.js';
export { DEFAULT_DATABASE_URL, dataSourceOptionsFromUrl } from './persistence/connection/data-source-options.js';
export { runMigrationsExclusively } from './persistence/migrations/migration-lock.js';
export { migrateStore, probeStore, type StoreProbeStep } from './persistence/connection/store-probe.js';
export { REFUSAL_RETENTION, RefusalStore, type RefusalRow } from './persistence/refusals/refusal-store.service.js';
export { SchemaNewerThanCodeError } from './persistence/migrations/schema-newer-than-code.error.js';
export { SqliteFileInUseError } from './persistence/dialects/sqlite-file-in-use.error.js';
export { OwnedDataSource } from './persistence/connection/owned-data-source.js';
export { ProcessNotificationsService } from './process-notifications.service.js';
export type {
  ClosedSessionView,
  JournalRecordView,
  LoopEventsPage,
  LoopStreamRangeRequest,
  LoopStreamsPage,
  SessionLoopEventsPage,
  LoopEventView,
  LoopView,
  PendingNotificationView,
  SessionTokenView,
  SessionView,
} from './process-notifications.views.js';
export type { ProcessOutcome } from './model/process-outcome.interface.js';
export { AdminQueries, DEFAULT_ADMIN_PAGE, DEFAULT_STALE_SECONDS, MAX_ADMIN_PAGE } from './admin/admin-queries.service.js';
export type {
  AdminLoopQuery,
  AdminLoopView,
  AdminPage,
  AdminPageRequest,
  AdminSessionView,
  NodeView,
  NotificationLocationView,
} from './admin/admin-views.js';

export { NotifyProcessCompletionCommand } from './commands/notify-process-completion/notify-process-completion.command.js';
export { ProcessCompletionNotificationDto } from './commands/notify-process-completion/process-completion-notification.dto.js';
export type { NotificationDelivery } from './commands/notify-process-completion/notification-delivery.interface.js';
export { ConsumeProcessNotificationCommand } from './commands/consume-process-notification/consume-process-notification.command.js';
export type {
  NotificationConsumption,
  NotificationConsumptionResult,
} from './commands/consume-process-notification/notification-consumption.interface.js';
export {
  ConsumeProcessNotificationsCommand,
  MAX_CONSUME_BATCH,
} from './commands/consume-process-notification/consume-process-notifications.command.js';
export { PublishProcessLifecycleCommand } from './commands/publish-process-lifecycle/publish-process-lifecycle.command.js';
export type { LifecyclePublication } from './commands/publish-process-lifecycle/lifecycle-publication.interface.js';
export { ProcessLifecycleRecordDto } from './commands/publish-process-lifecycle/process-lifecycle-record.dto.js';
export { OpenSessionCommand } from './commands/open-session/open-session.command.js';
export { RotateSessionTokenCommand } from './commands/rotate-session-token/rotate-session-token.command.js';
export { CloseSessionCommand } from './commands/close-session/close-session.command.js';
export { PruneJournalCommand } from './commands/prune-journal/prune-journal.command.js';
export { AdvertiseNodeUrlCommand } from './commands/advertise-node-url/advertise-node-url.command.js';
export { ReleaseSessionsCommand } from './commands/release-sessions/release-sessions.command.js';
export { OpenLoopCommand } from './commands/open-loop/open-loop.command.js';
export { StopLoopCommand } from './commands/stop-loop/stop-loop.command.js';

export { ProcessNotificationAcceptedEvent } from './events/process-notification-accepted.event.js';
export { ProcessNotificationConsumedEvent } from './events/process-notification-consumed.event.js';
export { ProcessStartedEvent } from './events/process-started.event.js';
export { ProcessBackgroundedEvent } from './events/process-backgrounded.event.js';
export { ProcessCompletedEvent } from './events/process-completed.event.js';
export { ProcessStopRequestedEvent } from './events/process-stop-requested.event.js';
export { ProcessLostEvent } from './events/process-lost.event.js';
export type { ProcessLifecycleEvent } from './events/process-lifecycle-event.type.js';
export type { ProcessLifecycleRecord } from './model/process-lifecycle-record.interface.js';
export type { PendingProcessNotification } from './model/pending-process-notification.interface.js';

export { ProcessNotificationsError } from './errors/process-notifications.error.js';
export { ValidationError } from './errors/validation.error.js';
export { OwnerMismatchError } from './errors/owner-mismatch.error.js';
export { SessionNotFoundError } from './errors/session-not-found.error.js';
export { LoopNotFoundError } from './errors/loop-not-found.error.js';
export { UnsupportedEngineError } from './errors/unsupported-engine.error.js';
export { IdempotencyCollisionError } from './errors/idempotency-collision.error.js';
export { DeliveryStoppedError } from './errors/delivery-stopped.error.js';
export { JournalUnavailableError } from './errors/journal-unavailable.error.js';
export { NotificationNotFoundError } from './errors/notification-not-found.error.js';
export { CommandNotJournaledError } from './errors/command-not-journaled.error.js';
export { AlreadyExistsError } from './errors/already-exists.error.js';
export { LoopLimitError } from './errors/loop-limit.error.js';
export { OwnerUnavailableError } from './errors/owner-unavailable.error.js';
export { SessionClosedError } from './errors/session-closed.error.js';
export type { SessionOwner } from './cluster/session-ownership.service.js';

export * from './vocabulary/process-vocabulary.js';
export { isCanonicalUuid, requireCanonicalUuid } from './validation/canonical-uuid.decorator.js';
/**
 * The library's id normaliser, for a server or embedding code to apply where an id enters it
 * (a route parameter, a header, a body field the library does not validate itself): ids are
 * compared in lower case, so an upper-case spelling is the same id. Apply it once, at that edge,
 * never again further in. A value that is not a string comes back as it is.
 */
export { normaliseId } from './validation/normalise-id.js';
export { validateInput, type InputSchema, type InputCheck } from './validation/validate-input.js';
export { PROCESS_HANDLE_PATTERN } from './validation/process-handle.decorator.js';
export { LIFECYCLE_DIAGNOSTIC_MAX_BYTES } from './validation/lifecycle-diagnostic.decorator.js';
