import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Subject } from 'rxjs';
import { DataSource, type EntityManager } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { PROCESS_NOTIFICATIONS_OPTIONS } from '../../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../../process-notifications-options.interface.js';
import { ProcessNotificationsError } from '../../errors/process-notifications.error.js';
import { SessionClosedError } from '../../errors/session-closed.error.js';
import type { JournalAppend, JournalDraft, ProbeAppend } from './journal-draft.interface.js';
import { JournalOutage } from '../durability/journal-outage.js';
import { JournalRecordEntity } from './journal-record.entity.js';
import { toDomain } from './journal-record.mapper.js';
import type { JournalRecord } from '../../model/journal-record.interface.js';
import { JournalRows } from './journal-rows.js';
import { SessionLeases } from '../leases/session-leases.service.js';
import { JOURNAL_SILENCE_MS, JournalWriteQueue, type Outcome } from './journal-write-queue.js';
import { JournalTransactionRunner } from '../transaction/journal-transaction-runner.js';
import { JournalReadConnection } from './journal-read-connection.js';
import { JournalDurability } from '../durability/journal-durability.js';
import { WalCheckpointer, WRITER_AUTOCHECKPOINT_PAGES } from '../durability/wal-checkpointer.js';
import { JournalFencing } from '../leases/journal-fencing.js';
import { JournalCommitHint, NO_COMMIT_HINT } from './journal-commit-hint.js';
import { JournalCounters } from './journal-counters.js';
import { JournalBatch } from './journal-batch.js';
import { collisionOf } from './idempotency-collision.js';
import type { JournalCommit } from './journal-commit.interface.js';
import type { JournalTransaction } from './journal-transaction.interface.js';
import { storeDialectOf } from '../dialects/store-dialects.js';
import { Topology } from '../../topology/topology.js';
import { topologyFor } from '../../topology/topology-for.js';
import type { JournalConsumption } from './journal-consumption.interface.js';
import { consumedRecord } from './consumed-record.js';
import { readerOf, transactionOf, type StoreReader, type StoreTransaction } from '../transaction/store-transaction.js';

export type { JournalCommit, JournalTransaction };

/** Default deadline of one queued unit of work, from enqueue to answer. */
export const DEFAULT_JOURNAL_TIMEOUT_MS = 5_000;
export { JOURNAL_SILENCE_MS };

/**
 * The single gateway to the database, composed of its parts: the queue (bounds, deadlines, group
 * commit), the transaction runner (BEGIN, COMMIT, verified rollback and repair), the read
 * connection, lease fencing and the commit hint (the health probe is `JournalHealth`'s).
 *
 * Fail closed: a caller hears success only after COMMIT returned and, on SQLite, the connection
 * is verifiably out of its transaction. When the store fails (disk full, I/O error, lock wait,
 * lost or stalled connection) every job of the batch is answered with `JournalUnavailableError`;
 * when one job's statement fails, each job of the batch is retried alone so every caller gets its
 * own answer. Every job has a deadline, and the queue is bounded.
 */
@Injectable()
export class JournalWriter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(JournalWriter.name);
  private readonly outage = new JournalOutage(this.logger);
  // Sessions closed (when), as seen committed or read: their writes are refused in the queue, none commits after the close.
  private readonly closedSessions = new Map<string, string>();
  private readonly committed = new Subject<JournalRecord>();
  private readonly commits = new Subject<JournalCommit>();
  private readonly timeoutMs: number;
  private readonly queue: JournalWriteQueue;
  private readonly reads: JournalReadConnection;
  // A SQLite file's commits, synced by the writer off the event loop's thread.
  private readonly durability?: JournalDurability;
  private readonly checkpointer?: WalCheckpointer;
  private readonly fencing: JournalFencing;
  private readonly batch: JournalBatch;

  /** Records as they commit, in sequence order, as the domain's `JournalRecord` (mapped once each, as it commits). */
  readonly records$ = this.committed.asObservable();

  /** Every committed transaction: its size and duration (for metrics and tests). */
  readonly commits$ = this.commits.asObservable();

  constructor(
    @InjectDataSource(PN_CONNECTION) private readonly dataSource: DataSource,
    leases: SessionLeases,
    @Optional() @Inject(PROCESS_NOTIFICATIONS_OPTIONS) options: ProcessNotificationsModuleOptions = {},
    topology: Topology = topologyFor(storeDialectOf(dataSource)),
  ) {
    this.timeoutMs = options.journalTimeoutMs ?? DEFAULT_JOURNAL_TIMEOUT_MS;
    if (!Number.isSafeInteger(this.timeoutMs) || this.timeoutMs < 1) {
      throw new Error(`journalTimeoutMs must be a positive integer, got ${String(options.journalTimeoutMs)}`);
    }
    const dialect = storeDialectOf(dataSource);
    const wal = dialect.walOf(dataSource);
    if (wal) {
      this.durability = new JournalDurability(wal.wal);
      const checkpointer = (this.checkpointer = new WalCheckpointer(wal, this.logger));
      this.durability.onSynced(() => checkpointer.committed());
    }
    this.reads = new JournalReadConnection(dataSource, this.timeoutMs, this.durability);
    this.fencing = new JournalFencing(leases, topology);
    this.batch = new JournalBatch({
      rows: new JournalRows(dataSource),
      transactions: new JournalTransactionRunner(dataSource, this.logger, this.durability),
      fencing: this.fencing,
      counters: new JournalCounters(dataSource),
      hint: topology.choose({ oneNode: () => NO_COMMIT_HINT, sharedDatabase: () => new JournalCommitHint(leases.nodeId) }),
      outage: this.outage,
      queue: { heard: () => this.queue.heard() },
      closedSessions: this.closedSessions,
      commits: this.commits,
    });
    this.queue = new JournalWriteQueue(
      {
        run: (batch) => this.batch.run(batch),
        committed: (record) => this.committed.next(toDomain(record)),
        storeFailed: (error) => this.outage.failed(error),
      },
      this.logger,
      // SQLite runs in this thread: a stalled disk or a lock wait blocks the timers too.
      dialect.inProcess ? undefined : JOURNAL_SILENCE_MS,
    );
  }

  async onModuleInit(): Promise<void> {
    if (this.durability) {
      // The writer syncs the WAL itself after each COMMIT (JournalDurability): SQLite need not
      // sync inside COMMIT, on this thread. What was written before (the migrations) is synced now.
      // Checkpoints run in a thread of their own (WalCheckpointer); the writer's is only a bound.
      storeDialectOf(this.dataSource).writerSyncsWal(this.dataSource, WRITER_AUTOCHECKPOINT_PAGES);
      await this.durability.sync();
      this.checkpointer?.start();
    }
    return this.reads.open();
  }

  async onModuleDestroy(): Promise<void> {
    await this.checkpointer?.stop();
    await this.reads.close();
    await this.durability?.close();
  }

  /**
   * Appends a record idempotently, keyed by (session, idempotency id). An identical retry
   * writes nothing and returns the original; a different payload under the same id throws
   * {@link IdempotencyCollisionError}; any store failure throws `JournalUnavailableError`.
   */
  async append(draft: JournalDraft): Promise<JournalAppend> {
    const result = await this.enqueue((manager) => this.batch.appendWithin(manager, draft), this.timeoutMs, draft.sessionId, [draft]);
    if ('collision' in result) throw collisionOf(draft, result.collision);
    return result;
  }

  /**
   * Runs `work` in the serialized queue, in one transaction with the appends it makes through `journal` and the rows it writes
   * through `store` (handed to persistence's row classes: `SessionRows`, `LoopRows`, `ProcessOutcomes.link`). A domain error it
   * throws (e.g. `AlreadyExistsError`) is handed back to its caller without failing the batch it shares with other callers, so it
   * must be thrown before the work writes anything.
   * @param sessionId the session whose records `work` writes: on PostgreSQL the transaction
   *   commits only while this node holds its lease (else `OwnerUnavailableError`)
   * @param appends drafts `work` appends first, before it may throw: PostgreSQL inserts them with the batch's others
   */
  write<T>(
    work: (store: StoreTransaction, journal: JournalTransaction) => Promise<T>,
    sessionId?: string,
    appends?: readonly JournalDraft[],
  ): Promise<T> {
    return this.writeIn((manager, journal) => work(transactionOf(manager), journal), sessionId, appends);
  }

  // {@link write}, its work given the manager itself (the writer's own row classes).
  private async writeIn<T>(
    work: (manager: EntityManager, journal: JournalTransaction) => Promise<T>,
    sessionId?: string,
    appends?: readonly JournalDraft[],
  ): Promise<T> {
    const outcome = await this.enqueue<{ done: T } | { refused: ProcessNotificationsError }>(
      async (manager) => {
        const written: JournalRecordEntity[] = [];
        const actions: (() => void)[] = [];
        const journal: JournalTransaction = {
          append: async (draft) => {
            const { value, written: appended } = await this.batch.appendWithin(manager, draft);
            if ('collision' in value) throw collisionOf(draft, value.collision);
            written.push(...appended);
            return value;
          },
          afterCommit: (action) => actions.push(action),
          beforeCommit: (rows, item) => this.batch.beforeCommit(rows, item),
        };
        try {
          const done = await work(manager, journal);
          return { value: { done }, written, committed: actions.length > 0 ? () => actions.forEach((action) => action()) : undefined };
        } catch (error) {
          if (error instanceof ProcessNotificationsError) return { value: { refused: error }, written };
          throw error;
        }
      },
      this.timeoutMs,
      sessionId,
      appends,
    );
    if ('refused' in outcome) throw outcome.refused;
    return outcome.done;
  }

  /** When the session was closed, as this node saw it commit or read it; undefined while it is open here. */
  closedAtOf(sessionId: string): string | undefined {
    return this.closedSessions.get(sessionId);
  }

  /** Refuses the writes of a session closed at `closedAt` (its close committed, or restore read it closed). */
  refuseWritesOf(sessionId: string, closedAt: string): void {
    this.closedSessions.set(sessionId, closedAt);
  }

  /** Runs a read, which never waits behind a write batch (see {@link JournalReadConnection}). */
  read<T>(work: (store: StoreReader) => Promise<T>): Promise<T> {
    return this.reads.read(
      (manager) => work(readerOf(manager)),
      (queued) => this.writeIn(queued),
    );
  }

  /**
   * A read of one indexed statement (a page slice, a lookup by key), as {@link read}; on
   * PostgreSQL a server that has not answered it within {@link JOURNAL_SILENCE_MS} is taken for
   * unreachable (`JournalUnavailableError`), so a node cut from its database answers within 2 s.
   */
  lookup<T>(work: (store: StoreReader) => Promise<T>): Promise<T> {
    return this.reads.read(
      (manager) => work(readerOf(manager)),
      (queued) => this.writeIn(queued),
      JOURNAL_SILENCE_MS,
    );
  }

  /**
   * Consumes notifications of one loop in one transaction (one unit of work of the queue): for
   * each command id, in order, its consumed record is appended unless one is journaled already;
   * an id no notification of this loop was journaled under is `notFound`; a repeated id answers
   * `consumed: false` (its first consumed it). The check reads the
   * journal inside the transaction, not the loop's pending set: a notification journaled for the
   * loop is the loop's to consume whether or not its pending set holds it yet (the loop may have
   * been given it by a stream before the dispatch that puts it in the set, or it may have been
   * refused `inbox_full`).
   * @param held ids the caller knows to be pending in the loop (journaled for it): not looked up
   */
  consume(
    sessionId: string,
    loopId: string,
    commandIds: readonly string[],
    held: (commandId: string) => boolean,
  ): Promise<JournalConsumption[]> {
    const drafts = new Map(commandIds.map((commandId) => [commandId, consumedRecord(sessionId, loopId, commandId)]));
    // Ids all pending in the loop now were journaled for it: their consumed records are plain
    // appends, which PostgreSQL may insert with the batch's others (one statement, not one each).
    const appends = [...drafts.keys()].every(held) ? [...drafts.values()] : undefined;
    return this.enqueue((manager) => this.batch.consumeAll(manager, loopId, commandIds, drafts, held), this.timeoutMs, sessionId, appends);
  }

  /** Whether the store failed the last transaction (and none committed since): see `JournalOutage`. */
  get storeFailing(): boolean {
    return this.outage.failing;
  }

  /** Runs a health probe alone in a transaction of the queue (see `JournalHealth`); what it appends is never announced. */
  inProbeTransaction<T>(work: (manager: EntityManager, append: ProbeAppend) => Promise<T>, timeoutMs: number): Promise<T> {
    return this.enqueue(
      async (manager) => ({ value: await work(manager, (m, draft) => this.batch.appendWithin(m, draft)), written: [] }),
      timeoutMs,
    );
  }

  private enqueue<T>(
    run: (manager: EntityManager) => Promise<Outcome<T>>,
    timeoutMs: number,
    sessionId?: string,
    appends?: readonly JournalDraft[],
  ): Promise<T> {
    // Checked when the job runs, not when it is queued: no write of a session commits in a
    // transaction after the one that closed it.
    const guarded =
      sessionId === undefined
        ? run
        : (manager: EntityManager): Promise<Outcome<T>> => {
            const closedAt = this.closedSessions.get(sessionId);
            if (closedAt === undefined) return run(manager);
            return Promise.resolve({ value: undefined as T, written: [], refused: new SessionClosedError(sessionId, closedAt) });
          };
    return this.queue.enqueue(guarded, timeoutMs, () => this.fencing.fenceFor(sessionId), appends);
  }
}
