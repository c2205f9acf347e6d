import { Injectable } from '@nestjs/common';
import { CommandBus, EventBus, ofType } from '@nestjs/cqrs';
import { ProcessNotificationAcceptedEvent } from './events/process-notification-accepted.event.js';
import { map, type Observable } from 'rxjs';
import { ConsumeProcessNotificationCommand } from './commands/consume-process-notification/consume-process-notification.command.js';
import type {
  NotificationConsumption,
  NotificationConsumptionResult,
} from './commands/consume-process-notification/notification-consumption.interface.js';
import { ConsumeProcessNotificationsCommand } from './commands/consume-process-notification/consume-process-notifications.command.js';
import type { NotificationDelivery } from './commands/notify-process-completion/notification-delivery.interface.js';
import { NotifyProcessCompletionCommand } from './commands/notify-process-completion/notify-process-completion.command.js';
import type { LifecyclePublication } from './commands/publish-process-lifecycle/lifecycle-publication.interface.js';
import { PublishProcessLifecycleCommand } from './commands/publish-process-lifecycle/publish-process-lifecycle.command.js';
import { OpenSessionCommand } from './commands/open-session/open-session.command.js';
import { RotateSessionTokenCommand } from './commands/rotate-session-token/rotate-session-token.command.js';
import { PruneJournalCommand } from './commands/prune-journal/prune-journal.command.js';
import { AdvertiseNodeUrlCommand } from './commands/advertise-node-url/advertise-node-url.command.js';
import { ReleaseSessionsCommand } from './commands/release-sessions/release-sessions.command.js';
import { CloseSessionCommand } from './commands/close-session/close-session.command.js';
import { OpenLoopCommand } from './commands/open-loop/open-loop.command.js';
import { StopLoopCommand } from './commands/stop-loop/stop-loop.command.js';
import { ProcessNotificationsJournalApi } from './process-notifications-journal-api.js';
import { Topology } from './topology/topology.js';
import { JournalWriter } from './persistence/journal/journal-writer.service.js';
import { JournalPages } from './persistence/pages/journal-pages.service.js';
import type { LoopEngine } from './vocabulary/process-vocabulary.js';
import type { PendingProcessNotification } from './model/pending-process-notification.interface.js';
import { Loops } from './loops/loops.service.js';
import { Sessions } from './sessions/sessions.service.js';
import { JournalFeed } from './journal/journal-feed.service.js';
import { SessionLeases } from './persistence/leases/session-leases.service.js';
import { SessionOwnership, type SessionOwner } from './cluster/session-ownership.service.js';
import { ProcessOutcomes } from './persistence/outcomes/process-outcomes.service.js';
import type { ProcessOutcome } from './model/process-outcome.interface.js';
import {
  loopView,
  type ClosedSessionView,
  type SessionTokenView,
  type LoopView,
  type PendingNotificationView,
  type SessionView,
} from './process-notifications.views.js';
import { idOf } from './validation/canonical-uuid.decorator.js';

/**
 * The library's API for embedding code: sessions, loops, delivery, consumption and the journal.
 * Every write of a session, a loop or a notification is a command on the CQRS command bus, one
 * handler per use case (see docs/architecture.md); this class only sends it and reads. Its methods
 * are where embedders' ids enter: each is normalised once, here (`idOf`) or by the command it sends.
 */
@Injectable()
export class ProcessNotificationsService extends ProcessNotificationsJournalApi {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly loops: Loops,
    sessions: Sessions,
    journal: JournalWriter,
    private readonly eventBus: EventBus,
    private readonly ownership: SessionOwnership,
    private readonly leases: SessionLeases,
    feed: JournalFeed,
    private readonly outcomes: ProcessOutcomes,
    private readonly topology: Topology,
    pages: JournalPages,
  ) {
    super(sessions, journal, pages, feed);
  }

  /**
   * Drops the payloads of consumed notifications and lifecycle records older than
   * `retentionDays` at `now` (this also runs hourly); returns how many were dropped.
   * @param now the clock, for tests and tools that must not wait @default new Date()
   */
  pruneJournal(now?: Date): Promise<number> {
    return this.commandBus.execute(new PruneJournalCommand(now));
  }

  /**
   * Opens a session. The returned token is shown once; only its hash is stored.
   * @param sessionId the id to use; a random UUID when omitted
   */
  openSession(sessionId?: string): Promise<{ sessionId: string; token: string }> {
    return this.commandBus.execute(new OpenSessionCommand(sessionId));
  }

  /** The session and its loops; throws `SessionNotFoundError` when unknown. */
  async getSession(sessionId: string): Promise<SessionView> {
    const session = await this.ownership.own(idOf(sessionId, 'session_id'));
    return {
      sessionId: session.sessionId,
      state: session.closedAt ? 'closed' : 'open',
      closedAt: session.closedAt ?? null,
      loops: this.loops.ofSession(session.sessionId).map(loopView),
    };
  }

  /**
   * Gives the session a new bearer token, returned once (only its hash is stored). From the
   * commit on the old token opens nothing, on any node sharing the database. Answered by the
   * session's owner; `SessionClosedError` when the session is closed.
   */
  async rotateSessionToken(sessionId: string): Promise<SessionTokenView> {
    return this.commandBus.execute(new RotateSessionTokenCommand(sessionId));
  }

  /**
   * Closes the session: from the commit on no token of it opens anything, and every write to it
   * (deliveries, lifecycle records, loops, stops, consumes, rotations) is refused with
   * `SessionClosedError`; it stays readable (loops, pending sets, journal) for the admin.
   * Idempotent: closing a closed session answers when it was closed.
   */
  async closeSession(sessionId: string): Promise<ClosedSessionView> {
    return this.commandBus.execute(new CloseSessionCommand(sessionId));
  }

  /**
   * Resolves when the session exists (created on any node), else throws `SessionNotFoundError`.
   * Takes nothing over: for routes any node serves, such as journal reads.
   */
  async requireSession(sessionId: string): Promise<void> {
    await this.sessions.find(idOf(sessionId, 'session_id'));
  }

  /** The session id a bearer token opens, or undefined. Looked up by the token's hash. */
  authenticate(token: string): Promise<string | undefined> {
    return this.sessions.authenticate(token);
  }

  /**
   * Where a session's requests are answered now (several nodes on PostgreSQL, spec section 9):
   * `self`; `node`, another live node at `url`, to forward to; or `none`, no live owner, so
   * this node takes the session over on its next call. Always `self` on SQLite. Takes nothing
   * over; throws `SessionNotFoundError` for an unknown session.
   */
  locateOwner(sessionId: string): Promise<SessionOwner> {
    return this.ownership.locate(idOf(sessionId, 'session_id'));
  }

  /**
   * True when other nodes may share this database and own its sessions (PostgreSQL); false on
   * SQLite, where {@link locateOwner} always answers `self` and nothing needs forwarding.
   */
  get sharesDatabase(): boolean {
    return this.topology.shared;
  }

  /** This process's node id (several nodes on PostgreSQL); a restarted process is a new node. */
  get nodeId(): string {
    return this.leases.nodeId;
  }

  /** Sets the base URL at which other nodes reach this one (see the `nodeUrl` option). */
  advertiseNodeUrl(url: string): Promise<void> {
    return this.commandBus.execute(new AdvertiseNodeUrlCommand(url));
  }

  /**
   * Releases this node's sessions at once, so other nodes take them over without waiting for the
   * lease TTL; this node then answers `OwnerUnavailableError` for them. Call it at shutdown after
   * in-flight requests have finished (module destroy does it too).
   */
  releaseSessions(): Promise<void> {
    return this.commandBus.execute(new ReleaseSessionsCommand());
  }

  /**
   * Opens a loop in a session.
   * @param engine only `native` loops take process notifications @default 'native'
   */
  async openLoop(sessionId: string, options: { loopId?: string; engine?: LoopEngine } = {}): Promise<LoopView> {
    return this.commandBus.execute(new OpenLoopCommand(sessionId, options.loopId, options.engine));
  }

  async getLoop(sessionId: string, loopId: string): Promise<LoopView> {
    const session = await this.ownership.own(idOf(sessionId, 'session_id'));
    return loopView(this.loops.require(session, idOf(loopId, 'loop_id')));
  }

  /** Stops a loop; later deliveries answer `stopped` (`loop_stopped`). */
  async stopLoop(sessionId: string, loopId: string): Promise<LoopView> {
    return this.commandBus.execute(new StopLoopCommand(sessionId, loopId));
  }

  /**
   * Delivers a completion notification, journal first: validates it, checks that it is
   * addressed to `sessionId` and to a native loop, appends it to the journal, then hands it to
   * the loop. Resolves with `{disposition, commandId, sequence, appended}` on `accepted` or
   * `duplicate`; rejects with a typed error otherwise (`DeliveryStoppedError` means: retry later
   * with the same `command_id` and an identical notification).
   * @param sessionId the session the call is made for; the notification's `session_id` must match
   * @param notification the supervisor's notification (snake_case wire format, closed schema)
   */
  notifyProcessCompletion(sessionId: string, notification: unknown): Promise<NotificationDelivery> {
    return this.commandBus.execute(new NotifyProcessCompletionCommand(sessionId, notification));
  }

  /**
   * Publishes a process lifecycle record: owner check first, then validation, then an idempotent
   * journal append keyed by `event_id`, then the domain event of its kind (`ProcessStartedEvent`,
   * `ProcessCompletedEvent`, ...). An identical retry resolves with `appended: false` and emits
   * nothing; a different record under the same `event_id` rejects with `IdempotencyCollisionError`.
   * @param sessionId the session the call is made for; the record's `session_id` must match
   * @param record the supervisor's lifecycle record (snake_case wire format, closed schema)
   */
  publishProcessLifecycle(sessionId: string, record: unknown): Promise<LifecyclePublication> {
    return this.commandBus.execute(new PublishProcessLifecycleCommand(sessionId, record));
  }

  /**
   * The loop's pending set in acceptance order, each with its `outcome` (section 14): how its
   * process ended, from the first `completed` or `lost` record of the session that names its
   * `command_id`, or `null` while there is none.
   */
  async pendingNotifications(sessionId: string, loopId: string): Promise<PendingNotificationView[]> {
    const session = await this.ownership.own(idOf(sessionId, 'session_id'));
    const loop = this.loops.require(session, idOf(loopId, 'loop_id'));
    const pending = loop.list();
    const outcomes = await this.outcomes.of(
      loop.sessionId,
      pending.map((notification) => notification.commandId),
    );
    return pending.map((notification) => ({ ...notification, outcome: outcomes.get(notification.commandId) ?? null }));
  }

  /**
   * The outcomes of these command ids in a session (section 14), by command id (lower case): for
   * every view of notifications, pending or not. A command without an outcome yet is absent.
   * Read from the database, so any node gives the same answer without owning the session.
   */
  processOutcomes(sessionId: string, commandIds: readonly string[]): Promise<Map<string, ProcessOutcome>> {
    return this.outcomes.of(
      idOf(sessionId, 'session_id'),
      commandIds.map((commandId) => idOf(commandId, 'command_id')),
    );
  }

  /**
   * Consumes a notification of the loop: a pending one, or one it refused but journaled
   * (`inbox_full`, stopped); a second consume answers `consumed: false`, an id the loop never
   * journaled throws `NotificationNotFoundError`.
   */
  consume(sessionId: string, loopId: string, commandId: string): Promise<NotificationConsumption> {
    return this.commandBus.execute(new ConsumeProcessNotificationCommand(sessionId, loopId, commandId));
  }

  /**
   * Consumes several notifications of a loop in one journal transaction (issue 37): 1 to
   * `MAX_CONSUME_BATCH` command ids (else `ValidationError`, field `command_ids`), each answered
   * in order as {@link consume} would answer it, with `notFound` where that throws
   * `NotificationNotFoundError`; a repeated id answers `consumed: false`.
   */
  consumeMany(sessionId: string, loopId: string, commandIds: readonly string[]): Promise<NotificationConsumptionResult[]> {
    return this.commandBus.execute(new ConsumeProcessNotificationsCommand(sessionId, loopId, commandIds));
  }

  /** Notifications as loops accept them (also published as `ProcessNotificationAcceptedEvent`). */
  get accepted$(): Observable<PendingProcessNotification> {
    return this.eventBus.pipe(
      ofType(ProcessNotificationAcceptedEvent),
      map((event) => event.notification),
    );
  }

  /**
   * Notifications pending in all loops of this process (accepted or restored, not yet consumed).
   * A running count: reading it costs nothing, however many loops there are.
   */
  get pendingCount(): number {
    return this.loops.pendingCount;
  }
}
