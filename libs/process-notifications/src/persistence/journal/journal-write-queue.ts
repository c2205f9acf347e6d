import type { JournalDraft } from './journal-draft.interface.js';
import type { LoggerService } from '@nestjs/common';
import { context, trace, type SpanContext } from '@opentelemetry/api';
import type { EntityManager } from 'typeorm';
import { ProcessNotificationsError } from '../../errors/process-notifications.error.js';
import { JournalUnavailableError } from '../../errors/journal-unavailable.error.js';
import type { JournalRecordEntity } from './journal-record.entity.js';
import type { Fence } from '../leases/journal-fencing.js';

/**
 * What one unit of work produced. `refused`: this job alone is answered with a domain error
 * (e.g. fenced); the batch goes on. `committed`: run once its transaction has committed, before
 * the next batch runs and whether or not its caller still waits.
 */
export interface Outcome<T> {
  readonly value: T;
  readonly written: readonly JournalRecordEntity[];
  readonly refused?: ProcessNotificationsError;
  readonly committed?: () => void;
}

/** A unit of work waiting for its transaction. */
export interface QueuedJob {
  run(manager: EntityManager): Promise<Outcome<unknown>>;
  readonly fence?: Fence;
  /**
   * Set when the job's writes are these appends, in this order, each answered as a plain append
   * of it would be: the writer may insert them with others of the batch, ahead of the job.
   */
  readonly appends?: readonly JournalDraft[];
  /** The span of whoever queued it, when tracing runs: the batch's span links to it. */
  readonly caller?: SpanContext;
}

/** What a batch's transaction answered: every job's outcome, or why none counts. */
export type BatchResult = { outcomes: Outcome<unknown>[] } | { error: unknown; retryAlone: boolean };

/** How the queue runs a batch and reports what it saw. */
export interface JournalBatches {
  /** Runs the jobs in one transaction. */
  run(batch: readonly QueuedJob[]): Promise<BatchResult>;
  /** A committed record, in sequence order, whether or not its caller still waits. */
  committed(record: JournalRecordEntity): void;
  /** A transaction failed because the store did. */
  storeFailed(error: unknown): void;
}

interface Job extends QueuedJob {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  timer?: NodeJS.Timeout;
  /** When it was queued (performance.now()). */
  readonly queuedAt: number;
  /** Answered (or expired): its outcome, if it still runs, reaches nobody. */
  settled: boolean;
}

// Enough to amortise a commit (an fsync on a file database) without holding callers for long.
const MAX_BATCH = 256;
// Jobs allowed to wait at once; past it callers are refused at once, so a stalled database
// cannot make memory grow without bound.
const MAX_QUEUED = 10_000;

/**
 * On PostgreSQL, how long a queued unit of work waits while the server finishes none of the
 * writer's work (neither a BEGIN nor one unit of work of the running batch) before it is answered
 * `JournalUnavailableError`: a node cut from its database answers within 2 s (contract, section
 * 9), while a server that answers keeps the whole `DEFAULT_JOURNAL_TIMEOUT_MS` for slow work.
 */
export const JOURNAL_SILENCE_MS = 1_500;

/**
 * The writer's queue: bounded, every job with a deadline, drained one batch (one transaction) at
 * a time; work queued while a batch runs goes into the next one (group commit). When a batch
 * fails for one job's sake, each of its jobs is retried alone so every caller gets its own answer.
 *
 * With a `silenceMs`, a job is also answered once the store has said nothing at all for that
 * long while the job waited (no statement answered, see {@link heard}): a store that cannot be
 * reached (frozen, partitioned, a connection that hangs) is told to callers within `silenceMs`,
 * not at their deadline, while a store that answers keeps the whole deadline for slow work.
 */
export class JournalWriteQueue {
  private readonly queue: Job[] = [];
  // The jobs of the batch whose transaction runs now.
  private running: readonly Job[] = [];
  private draining = false;
  // When the store last answered a statement (performance.now()).
  private lastHeard = performance.now();
  private watchdog?: NodeJS.Timeout;

  constructor(
    private readonly batches: JournalBatches,
    private readonly logger: LoggerService,
    private readonly silenceMs?: number,
  ) {}

  /** The store answered a statement (it is reachable): waiting jobs get a new `silenceMs`. */
  heard(): void {
    this.lastHeard = performance.now();
  }

  /**
   * Queues `run`, answered within `timeoutMs`. `fence` is asked only once the job has a place:
   * it names the lease the job's transaction must hold, or throws to refuse the job.
   */
  enqueue<T>(
    run: (manager: EntityManager) => Promise<Outcome<T>>,
    timeoutMs: number,
    fence?: () => Fence | undefined,
    appends?: readonly JournalDraft[],
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length >= MAX_QUEUED) {
        reject(new JournalUnavailableError(`${MAX_QUEUED} writes are already waiting for the database`));
        return;
      }
      let jobFence: Fence | undefined;
      try {
        jobFence = fence?.();
      } catch (error) {
        reject(error);
        return;
      }
      const job: Job = {
        run,
        fence: jobFence,
        appends,
        caller: trace.getSpanContext(context.active()),
        resolve: resolve as (value: unknown) => void,
        reject,
        settled: false,
        queuedAt: performance.now(),
      };
      job.timer = setTimeout(() => this.expire(job, timeoutMs), timeoutMs);
      this.queue.push(job);
      this.watch();
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
    // Still queued: it never ran. Otherwise its transaction is under way and may yet commit.
    this.fail(job, new Error(`the database did not answer within ${timeoutMs} ms`), index < 0);
  }

  // One timer for all jobs: the oldest waiting job is the first whose silence runs out.
  private watch(): void {
    if (this.silenceMs === undefined || this.watchdog) return;
    const oldest = this.running.find((job) => !job.settled) ?? this.queue.find((job) => !job.settled);
    if (!oldest) return;
    const due = Math.max(oldest.queuedAt, this.lastHeard) + this.silenceMs;
    this.watchdog = setTimeout(() => this.bark(), Math.max(0, due - performance.now()));
    // Only callers wait on it; it must not keep a process alive that has nothing else to do.
    this.watchdog.unref();
  }

  // Answers every job that has waited `silenceMs` without a word from the store. Like a deadline:
  // a queued job never runs, a running one's outcome reaches nobody (a retry de-duplicates).
  private bark(): void {
    this.watchdog = undefined;
    const silenceMs = this.silenceMs!;
    const now = performance.now();
    const silent = (job: Job) => now - Math.max(job.queuedAt, this.lastHeard) >= silenceMs;
    const error = () => new Error(`the database has not answered for ${silenceMs} ms`);
    for (const job of this.running) if (!job.settled && silent(job)) this.fail(job, error(), true);
    // The queue is in enqueue order: the silent jobs are at its head.
    while (this.queue.length > 0 && (this.queue[0]!.settled || silent(this.queue[0]!))) this.fail(this.queue.shift()!, error(), false);
    this.watch();
  }

  // `ran`: the job's transaction was under way, so it may have committed: the caller is told so
  // (a store failure while it ran gives no proof of a rollback either).
  private fail(job: Job, error: unknown, ran: boolean): void {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.timer);
    if (error instanceof JournalUnavailableError) job.reject(ran && !error.mayHaveCommitted ? inDoubt(error.cause) : error);
    else job.reject(error instanceof ProcessNotificationsError ? error : new JournalUnavailableError(error, { mayHaveCommitted: ran }));
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH).filter((job) => !job.settled);
        if (batch.length === 0) continue;
        this.running = batch;
        const result = await this.batches.run(batch);
        if ('outcomes' in result) {
          this.settle(batch, result.outcomes);
        } else if (!result.retryAlone) {
          this.batches.storeFailed(result.error);
          for (const job of batch) this.fail(job, result.error, true);
        } else {
          // One job's failure must not become every caller's: retry each alone. This also
          // answers a lone append that lost a unique-index race to another process on a
          // shared PostgreSQL: its retry finds the winner's row.
          for (const job of batch) {
            if (job.settled) continue;
            this.running = [job];
            const alone = await this.batches.run([job]);
            if ('outcomes' in alone) this.settle([job], alone.outcomes);
            else {
              if (!alone.retryAlone) this.batches.storeFailed(alone.error);
              this.fail(job, alone.error, true);
            }
          }
        }
      }
    } catch (error) {
      this.logger.error('journal queue failed', error as Error);
    } finally {
      this.running = [];
      this.draining = false;
      if (this.queue.length > 0) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    }
  }

  // Commit first, publish after: callers and subscribers hear only of committed records.
  private settle(batch: Job[], outcomes: Outcome<unknown>[]): void {
    batch.forEach((job, i) => {
      for (const record of outcomes[i]!.written) this.batches.committed(record);
      outcomes[i]!.committed?.();
      if (job.settled) return;
      job.settled = true;
      clearTimeout(job.timer);
      const { refused, value } = outcomes[i]!;
      if (refused) job.reject(refused);
      else job.resolve(value);
    });
  }
}

const inDoubt = (cause: unknown): JournalUnavailableError => new JournalUnavailableError(cause, { mayHaveCommitted: true });
