import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { hash } from 'node:crypto';
import { Subject } from 'rxjs';
import { DataSource, MoreThan, type EntityManager, type QueryRunner } from 'typeorm';
import { PN_CONNECTION } from '../constants.js';
import { PROCESS_NOTIFICATIONS_OPTIONS } from '../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../process-notifications-options.interface.js';
import { ProcessNotificationsError } from '../errors/process-notifications.error.js';
import { IdempotencyCollisionError } from '../errors/idempotency-collision.error.js';
import { JournalUnavailableError } from '../errors/journal-unavailable.error.js';
import { CONSUMED_KIND } from '../journal/consumed-record.js';
import type { JournalAppend, JournalDraft } from '../journal/journal-draft.interface.js';
import { JournalOutage } from './journal-outage.js';
import type { JournalKind } from '../vocabulary/process-vocabulary.js';
import { JournalRecordEntity } from './journal-record.entity.js';
import { LoopEntity } from './loop.entity.js';
import { SessionEntity } from './session.entity.js';
import { JournalRows, type LoopStopRow, type PendingRow } from './journal-rows.js';
import { JournalCounters } from './journal-counters.js';
import { isStoreFailure } from './store-failure.js';
import { sqliteConnectionOf } from './sqlite-connection.js';
import { OwnerUnavailableError } from '../errors/owner-unavailable.error.js';
import { SessionLeases } from './session-leases.service.js';

/** The PostgreSQL channel every committed batch notifies, with the sessions it wrote. */
export const JOURNAL_CHANNEL = 'pn_journal';
/** A notification payload meaning "any session may have new records". */
export const ANY_SESSION = '*';
// NOTIFY payloads must stay under 8000 bytes.
const MAX_NOTIFY_PAYLOAD = 7_900;

// `refused`: this job alone is answered with a domain error (e.g. fenced); the batch goes on.
type Outcome<T> = { value: T; written: JournalRecordEntity[]; refused?: ProcessNotificationsError };

/** The session whose lease a job's transaction must still hold, at the epoch it was queued with. */
interface Fence {
  readonly sessionId: string;
  readonly epoch: number;
}

interface Job {
  run(manager: EntityManager): Promise<Outcome<unknown>>;
  fence?: Fence;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  timer?: NodeJS.Timeout;
  /** Answered (or expired): its outcome, if it still runs, reaches nobody. */
  settled: boolean;
}

/** One committed transaction of the writer. */
export interface JournalCommit {
  /** Jobs committed together. */
  readonly size: number;
  /** From BEGIN to the end of COMMIT. */
  readonly seconds: number;
}

/** Rows restore rebuilds the in-memory state from, before the pending notifications. */
export interface RestoreRows {
  readonly sessions: SessionEntity[];
  readonly loops: LoopEntity[];
  readonly stops: LoopStopRow[];
}

type BatchResult = { outcomes: Outcome<unknown>[] } | { error: unknown; retryAlone: boolean };

/** Appends inside a unit of work given to {@link JournalWriter.write}, committed with it. */
export interface JournalTransaction {
  append(draft: JournalDraft): Promise<JournalAppend>;
}

// Enough to amortise a commit (an fsync on a file database) without holding callers for long.
const MAX_BATCH = 256;
// Jobs allowed to wait at once; past it callers are refused at once, so a stalled database
// cannot make memory grow without bound.
const MAX_QUEUED = 10_000;
/** Default deadline of one queued unit of work, from enqueue to answer. */
export const DEFAULT_JOURNAL_TIMEOUT_MS = 5_000;
// A health probe answers sooner than a write may take.
const HEALTH_TIMEOUT_MS = 2_000;

function fingerprintOf(kind: JournalKind, payload: string): string {
  return hash('sha256', `${kind}\n${payload}`, 'hex');
}

/**
 * The single gateway to the database. Every unit of work is queued and run one transaction at
 * a time (SQLite has one connection; TypeORM's transaction nesting is never used: the writer
 * sends BEGIN and COMMIT itself and checks the connection's real state after every failure);
 * work queued while a transaction runs is committed together in the next one (group commit).
 *
 * Fail closed: a caller hears success only after COMMIT returned and, on SQLite, the connection
 * is verifiably out of its transaction. When the store fails (disk full, I/O error, lock wait,
 * lost or stalled connection) every job of the batch is answered {@link JournalUnavailableError};
 * when one job's statement fails, each job of the batch is retried alone so every caller gets its
 * own answer. Every job has a deadline, and the queue is bounded.
 */
@Injectable()
export class JournalWriter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(JournalWriter.name);
  private readonly outage = new JournalOutage(this.logger);
  private readonly queue: Job[] = [];
  private draining = false;
  private readonly rows: JournalRows;
  private readonly counters: JournalCounters;
  private readonly committed = new Subject<JournalRecordEntity>();
  private readonly commits = new Subject<JournalCommit>();
  private readonly timeoutMs: number;
  // SQLite file databases: the read-only connection of read().
  private readSource?: DataSource;

  /** Records as they commit, in sequence order. */
  readonly records$ = this.committed.asObservable();

  /** Every committed transaction: its size and duration (for metrics and tests). */
  readonly commits$ = this.commits.asObservable();

  constructor(
    @InjectDataSource(PN_CONNECTION) private readonly dataSource: DataSource,
    private readonly leases: SessionLeases,
    @Optional() @Inject(PROCESS_NOTIFICATIONS_OPTIONS) options: ProcessNotificationsModuleOptions = {},
  ) {
    this.rows = new JournalRows(dataSource);
    this.counters = new JournalCounters(dataSource);
    this.timeoutMs = options.journalTimeoutMs ?? DEFAULT_JOURNAL_TIMEOUT_MS;
    if (!Number.isSafeInteger(this.timeoutMs) || this.timeoutMs < 1) {
      throw new Error(`journalTimeoutMs must be a positive integer, got ${String(options.journalTimeoutMs)}`);
    }
  }

  async onModuleInit(): Promise<void> {
    const { type, database } = this.dataSource.options as { type: string; database?: unknown };
    if (type !== 'better-sqlite3' || typeof database !== 'string' || database === ':memory:') return;
    this.readSource = await new DataSource({
      type: 'better-sqlite3',
      database,
      readonly: true,
      entities: this.dataSource.options.entities,
      synchronize: false,
      migrationsRun: false,
      logging: false,
      prepareDatabase: (db: { pragma(source: string): unknown }) => {
        db.pragma('busy_timeout = 2000');
      },
    }).initialize();
  }

  async onModuleDestroy(): Promise<void> {
    const source = this.readSource;
    this.readSource = undefined;
    if (source?.isInitialized) await source.destroy();
  }

  /**
   * Appends a record idempotently, keyed by (session, idempotency id). An identical retry
   * writes nothing and returns the original; a different payload under the same id throws
   * {@link IdempotencyCollisionError}; any store failure throws {@link JournalUnavailableError}.
   */
  async append(draft: JournalDraft): Promise<JournalAppend> {
    const result = await this.enqueue((manager) => this.appendWithin(manager, draft), this.timeoutMs, draft.sessionId);
    if ('collision' in result) throw new IdempotencyCollisionError(draft.idempotencyId, result.collision.sequence);
    return result;
  }

  /**
   * Runs `work` in the serialized queue, in one transaction with the appends it makes through
   * `journal`. A domain error it throws (e.g. `AlreadyExistsError`) is handed back to its caller
   * without failing the batch it shares with other callers, so it must be thrown before the work
   * writes anything.
   * @param sessionId the session whose records `work` writes: on PostgreSQL the transaction
   *   commits only while this node holds its lease (else `OwnerUnavailableError`)
   */
  async write<T>(work: (manager: EntityManager, journal: JournalTransaction) => Promise<T>, sessionId?: string): Promise<T> {
    const outcome = await this.enqueue<{ done: T } | { refused: ProcessNotificationsError }>(
      async (manager) => {
        const written: JournalRecordEntity[] = [];
        const journal: JournalTransaction = {
          append: async (draft) => {
            const { value, written: appended } = await this.appendWithin(manager, draft);
            if ('collision' in value) throw new IdempotencyCollisionError(draft.idempotencyId, value.collision.sequence);
            written.push(...appended);
            return value;
          },
        };
        try {
          return { value: { done: await work(manager, journal) }, written };
        } catch (error) {
          if (error instanceof ProcessNotificationsError) return { value: { refused: error }, written };
          throw error;
        }
      },
      this.timeoutMs,
      sessionId,
    );
    if ('refused' in outcome) throw outcome.refused;
    return outcome.done;
  }

  /**
   * Runs a read, which never waits behind a write batch: on a SQLite file through a second,
   * read-only connection (WAL lets it read the last commit while a batch runs); on PostgreSQL on
   * a pooled connection. In-memory SQLite has one connection: reads queue with the writes there,
   * so they never observe another caller's uncommitted transaction.
   */
  async read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.isSqlite()) {
      if (!this.readSource?.isInitialized) return this.write(work);
      try {
        return await work(this.readSource.manager);
      } catch (error) {
        throw error instanceof ProcessNotificationsError ? error : new JournalUnavailableError(error);
      }
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([work(this.dataSource.manager), deadline]);
    } catch (error) {
      throw error instanceof ProcessNotificationsError ? error : new JournalUnavailableError(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The consumed record of a notification, if it was consumed. */
  consumptionOf(sessionId: string, commandId: string): Promise<JournalRecordEntity | null> {
    return this.read((manager) => manager.findOneBy(JournalRecordEntity, { sessionId, causeCommandId: commandId, kind: CONSUMED_KIND }));
  }

  /** Up to `limit` records of a session after sequence `after`, in sequence order. */
  page(sessionId: string, after: number, limit: number): Promise<JournalRecordEntity[]> {
    return this.read((manager) =>
      manager.find(JournalRecordEntity, {
        where: { sessionId, sequence: MoreThan(after) },
        order: { sequence: 'ASC' },
        take: limit,
      }),
    );
  }

  /**
   * What restore needs, in one read: sessions, loops and loop stop records, then every
   * still-pending notification, handed to what `rebuild` returns for them in journal order; of
   * every session, or of one.
   */
  restore(sessionId: string | undefined, rebuild: (rows: RestoreRows) => (pending: PendingRow) => void): Promise<void> {
    return this.read(async (manager) => {
      const where = sessionId === undefined ? {} : { sessionId };
      const visit = rebuild({
        sessions: await manager.find(SessionEntity, { where }),
        loops: await manager.find(LoopEntity, { where }),
        stops: await this.rows.loopStops(manager, sessionId),
      });
      await this.rows.forEachPending(manager, sessionId, visit);
    });
  }

  /** Drops up to `limit` prunable payloads older than `cutoff` in one transaction (retention). */
  dropPayloads(cutoff: string, limit: number): Promise<number> {
    return this.write((manager) => this.rows.dropPayloads(manager, cutoff, limit));
  }

  /**
   * True when the journal can commit, answered within {@link HEALTH_TIMEOUT_MS}. While the store
   * is failing the probe on SQLite is a real append, taken back in the same transaction (the row
   * and its sequence number), so a full disk keeps the service unhealthy until space is back, and
   * the probe itself notices recovery when no other write comes.
   */
  async isHealthy(): Promise<boolean> {
    const probe =
      this.outage.failing && this.isSqlite()
        ? (manager: EntityManager) => this.probeAppend(manager)
        : (manager: EntityManager) => manager.query('SELECT 1');
    try {
      await this.enqueue(async (manager) => ({ value: await probe(manager), written: [] }), HEALTH_TIMEOUT_MS);
      return true;
    } catch {
      return false;
    }
  }

  private async probeAppend(manager: EntityManager): Promise<void> {
    // A largest notification, at the right edge of the table and of both indexes, where new
    // records of new (time-ordered) sessions go.
    const id = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    const { written } = await this.appendWithin(manager, {
      sessionId: id,
      loopId: id,
      kind: 'process_notification',
      idempotencyId: id,
      causeCommandId: id,
      payload: { command_id: id, session_id: id, loop_id: id, process_handle: 'p'.repeat(128), state: 'exited', reason: 'exited' },
    });
    await manager.query('DELETE FROM pn_journal WHERE sequence = ?', [written[0]!.sequence]);
    // AUTOINCREMENT moved on; move it back so the probe leaves no gap in the sequence.
    await manager.query("UPDATE sqlite_sequence SET seq = seq - 1 WHERE name = 'pn_journal'");
  }

  private async appendWithin(
    manager: EntityManager,
    draft: JournalDraft,
  ): Promise<Outcome<JournalAppend | { collision: JournalRecordEntity }>> {
    const payload = JSON.stringify(draft.payload);
    const fingerprint = fingerprintOf(draft.kind, payload);
    const existing = await this.rows.find(manager, draft.sessionId, draft.idempotencyId);
    if (existing) {
      const value = existing.fingerprint === fingerprint ? { record: existing, appended: false } : { collision: existing };
      return { value, written: [] };
    }
    const record = await this.rows.insert(manager, {
      sessionId: draft.sessionId,
      loopId: draft.loopId,
      kind: draft.kind,
      idempotencyId: draft.idempotencyId,
      fingerprint,
      payload,
      causeCommandId: draft.causeCommandId ?? null,
      createdAt: new Date().toISOString(),
    });
    return { value: { record, appended: true }, written: [record] };
  }

  private enqueue<T>(run: (manager: EntityManager) => Promise<Outcome<T>>, timeoutMs = this.timeoutMs, sessionId?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length >= MAX_QUEUED) {
        reject(new JournalUnavailableError(`${MAX_QUEUED} writes are already waiting for the database`));
        return;
      }
      let fence: Fence | undefined;
      if (sessionId !== undefined && this.leases.enabled) {
        // The epoch the caller's view of the session comes from: a later owner's epoch won't do.
        const epoch = this.leases.heldEpoch(sessionId);
        if (epoch === undefined) {
          reject(new OwnerUnavailableError(sessionId, 1, 'this node does not hold its lease'));
          return;
        }
        fence = { sessionId, epoch };
      }
      const job: Job = { run, fence, resolve: resolve as (value: unknown) => void, reject, settled: false };
      job.timer = setTimeout(() => this.expire(job, timeoutMs), timeoutMs);
      this.queue.push(job);
      if (!this.draining) {
        this.draining = true;
        // Let callers of the same tick join the first batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  // The caller is answered now; if the job is still queued it never runs, and if its
  // transaction is running (a stalled database) its outcome reaches nobody. A retry with the
  // same id de-duplicates against whatever did commit.
  private expire(job: Job, timeoutMs: number): void {
    const index = this.queue.indexOf(job);
    if (index >= 0) this.queue.splice(index, 1);
    this.fail(job, new Error(`the database did not answer within ${timeoutMs} ms`));
  }

  private fail(job: Job, error: unknown): void {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.timer);
    job.reject(error instanceof ProcessNotificationsError ? error : new JournalUnavailableError(error));
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH).filter((job) => !job.settled);
        if (batch.length === 0) continue;
        const result = await this.transaction(batch);
        if ('outcomes' in result) {
          this.settle(batch, result.outcomes);
        } else if (!result.retryAlone) {
          this.outage.failed(result.error);
          for (const job of batch) this.fail(job, result.error);
        } else {
          // One job's failure must not become every caller's: retry each alone. This also
          // answers a lone append that lost a unique-index race to another process on a
          // shared PostgreSQL: its retry finds the winner's row.
          for (const job of batch) {
            if (job.settled) continue;
            const alone = await this.transaction([job]);
            if ('outcomes' in alone) this.settle([job], alone.outcomes);
            else {
              if (!alone.retryAlone) this.outage.failed(alone.error);
              this.fail(job, alone.error);
            }
          }
        }
      }
    } catch (error) {
      this.logger.error('journal queue failed', error as Error);
    } finally {
      this.draining = false;
      if (this.queue.length > 0) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    }
  }

  /**
   * One transaction, BEGIN and COMMIT sent by the writer itself. Its outcomes count only when
   * COMMIT succeeded and the connection is verifiably no longer in a transaction.
   */
  private async transaction(batch: Job[]): Promise<BatchResult> {
    const started = performance.now();
    let runner: QueryRunner;
    try {
      runner = await this.begin();
    } catch (error) {
      return { error, retryAlone: false };
    }
    const outcomes: Outcome<unknown>[] = [];
    try {
      const fenced = new Map<string, boolean>();
      for (const job of batch) {
        if (job.fence && !(await this.holdsLease(runner.manager, job.fence, fenced))) {
          const refused = new OwnerUnavailableError(job.fence.sessionId, 1, 'this node lost its lease');
          outcomes.push({ value: undefined, written: [], refused });
          continue;
        }
        outcomes.push(await job.run(runner.manager));
      }
      // The admin counts commit with the records that change them.
      await this.counters.apply(
        runner.manager,
        outcomes.flatMap((outcome) => outcome.written),
      );
      await this.notifyReaders(runner, outcomes);
    } catch (error) {
      await this.abort(runner, error);
      return { error, retryAlone: !isStoreFailure(error) };
    }
    try {
      await runner.query('COMMIT');
      // SQLite may report success while the connection is still inside a transaction only if
      // something is badly wrong; trust nothing that is not verifiably committed.
      if (this.inSqliteTransaction(runner)) throw new Error('COMMIT returned but the connection is still in a transaction');
    } catch (error) {
      await this.abort(runner, error);
      return { error, retryAlone: false };
    }
    this.releasePooled(runner);
    this.outage.succeeded();
    for (const [i, job] of batch.entries()) {
      // Fenced: this node's view of the session is stale; drop it (the next request re-acquires).
      if (outcomes[i]!.refused instanceof OwnerUnavailableError && job.fence) this.leases.lose(job.fence.sessionId, job.fence.epoch);
    }
    this.commits.next({ size: batch.length, seconds: (performance.now() - started) / 1000 });
    return { outcomes };
  }

  // Once per session and transaction: the lease row is then held FOR SHARE until COMMIT.
  private async holdsLease(manager: EntityManager, fence: Fence, checked: Map<string, boolean>): Promise<boolean> {
    const key = `${fence.sessionId}@${fence.epoch}`;
    let holds = checked.get(key);
    if (holds === undefined) {
      holds = await this.leases.fence(manager, fence.sessionId, fence.epoch);
      checked.set(key, holds);
    }
    return holds;
  }

  // PostgreSQL: one NOTIFY per committed batch (NOTIFY serializes commits, so never one per
  // record), naming the sessions written; readers on every node take it as a wake-up hint.
  private async notifyReaders(runner: QueryRunner, outcomes: Outcome<unknown>[]): Promise<void> {
    if (!this.leases.enabled) return;
    const sessions = new Set(outcomes.flatMap((outcome) => outcome.written.map((record) => record.sessionId)));
    if (sessions.size === 0) return;
    const listed = [...sessions].join(',');
    await runner.query('SELECT pg_notify($1, $2)', [JOURNAL_CHANNEL, listed.length <= MAX_NOTIFY_PAYLOAD ? listed : ANY_SESSION]);
  }

  private async begin(): Promise<QueryRunner> {
    if (!this.dataSource.isInitialized) throw new Error('the database connection is closed');
    // SQLite: the one shared connection. PostgreSQL: a pooled connection for this transaction.
    const runner = this.dataSource.createQueryRunner('master');
    try {
      await runner.connect();
      if (this.inSqliteTransaction(runner)) {
        // A transaction SQLite did not end (or ended behind TypeORM's back) must not turn this
        // one into a savepoint of it: repair, or fail closed.
        this.rollbackSqlite(runner);
        if (this.inSqliteTransaction(runner)) throw new Error('the SQLite connection is stuck in a transaction');
      }
      // IMMEDIATE takes the write lock now, so a concurrent process makes BEGIN wait
      // (busy_timeout), never a statement halfway through the batch.
      await runner.query(this.isSqlite() ? 'BEGIN IMMEDIATE' : 'BEGIN');
      return runner;
    } catch (error) {
      this.discardPooled(runner, error);
      throw error;
    }
  }

  // After any failure: leave the connection out of any transaction, or drop it.
  private async abort(runner: QueryRunner, error: unknown): Promise<void> {
    if (this.isSqlite()) {
      this.rollbackSqlite(runner);
      return;
    }
    if (isStoreFailure(error)) {
      this.discardPooled(runner, error);
      return;
    }
    try {
      await runner.query('ROLLBACK');
      this.releasePooled(runner);
    } catch (rollbackError) {
      this.discardPooled(runner, rollbackError);
    }
  }

  // SQLite rolls back by itself after SQLITE_FULL, SQLITE_IOERR and the like; ROLLBACK is sent
  // only when a transaction is really open, and its own failure is left to the next BEGIN.
  private rollbackSqlite(runner: QueryRunner): void {
    const db = sqliteConnectionOf(runner.connection);
    if (!db?.open || !db.inTransaction) return;
    try {
      db.exec('ROLLBACK');
    } catch (error) {
      this.logger.warn(`ROLLBACK failed: ${(error as Error).message}`);
    }
  }

  private inSqliteTransaction(runner: QueryRunner): boolean {
    return sqliteConnectionOf(runner.connection)?.inTransaction === true;
  }

  private isSqlite(): boolean {
    return this.dataSource.options.type === 'better-sqlite3';
  }

  private releasePooled(runner: QueryRunner): void {
    if (!this.isSqlite() && !runner.isReleased) void runner.release().catch(() => undefined);
  }

  // A PostgreSQL connection that failed or timed out mid-query is destroyed, not returned to
  // the pool: a stalled statement may still be queued on it.
  private discardPooled(runner: QueryRunner, error: unknown): void {
    if (this.isSqlite() || runner.isReleased) return;
    const release = (runner as unknown as { releasePostgresConnection?: (error: unknown) => Promise<void> }).releasePostgresConnection;
    void (release ? release.call(runner, error instanceof Error ? error : new Error(String(error))) : runner.release()).catch(
      () => undefined,
    );
  }

  // Commit first, publish after: callers and subscribers hear only of committed records.
  private settle(batch: Job[], outcomes: Outcome<unknown>[]): void {
    batch.forEach((job, i) => {
      for (const record of outcomes[i]!.written) this.committed.next(record);
      if (job.settled) return;
      job.settled = true;
      clearTimeout(job.timer);
      const { refused, value } = outcomes[i]!;
      if (refused) job.reject(refused);
      else job.resolve(value);
    });
  }
}
