import type { PendingNotification } from 'process-notifications-contract';
import type { CompletionUpdate } from './completion-tracker.js';
import { LoopWorkerError, type LoopWorkerFailure } from './loop-worker.error.js';
import type { ProcessNotificationsClient } from './process-notifications.client.js';

/** What a {@link LoopWorker}'s handler is given besides the notification. */
export interface LoopWorkerContext {
  /** The `completions()` update that handed the notification out: `new`, or `outcome` when its outcome came later. */
  readonly update: CompletionUpdate['update'];
  /** Aborted when the worker is stopping: a long handler may end early (throwing leaves the notification pending). */
  readonly signal: AbortSignal;
}

/**
 * Acts on one notification of the loop. Returning (or resolving) consumes it; throwing (or
 * rejecting) leaves it pending and reports it to `onError`.
 */
export type LoopWorkerHandler = (notification: PendingNotification, context: LoopWorkerContext) => unknown;

/** Options of a {@link LoopWorker}. */
export interface LoopWorkerOptions {
  /** Most handlers running at once. @default 1 */
  readonly concurrency?: number;
  /**
   * False (the default): hand each notification out as soon as it is there, with its `outcome`
   * when the outcome record came first (`pn-supervise` sends it first), else with `outcome: null`.
   * True: hold it until its outcome is known, for a supervisor that sends its record after the
   * notification; a notification whose supervisor sends no record is then never handed out.
   * @default false
   */
  readonly waitForOutcome?: boolean;
  /** Told each notification handed out and not consumed. Default: `console.error`. */
  readonly onError?: (error: LoopWorkerError) => void;
  /** Stops the worker, as {@link LoopWorker.close} does. */
  readonly signal?: AbortSignal;
}

/**
 * Works through a loop's completions (issue 46), as a job queue's worker does: each notification
 * is handed to `handler` once, at most `concurrency` at a time, and consumed once the handler
 * returned; a handler that throws leaves it pending (reported to `onError`, not retried by this
 * run). Consumes are not waited for before the next notification is handed out: they travel in
 * the client's batches ({@link ProcessNotificationsClient.consume}) while the next handlers run.
 * Stopping ({@link close}, or `signal`) takes nothing more and waits for the handlers running and
 * their consumes. At least once: a process that dies after a handler returned and before its
 * consume committed is given that notification again by the next run, so handlers should be
 * idempotent (keyed by `command_id`).
 *
 * ```ts
 * const worker = new LoopWorker(client, sessionId, loopId, async (n) => act(n), { concurrency: 4 });
 * await worker.run(); // until worker.close() or the signal
 * ```
 */
export class LoopWorker {
  private readonly concurrency: number;
  private readonly waitForOutcome: boolean;
  private readonly stopping = new AbortController();
  // Handed out and not yet consumed or failed: never handed out again meanwhile.
  private readonly inFlight = new Set<string>();
  // Each handed-out notification's handler and consume; they never reject.
  private readonly work = new Set<Promise<void>>();
  private running = 0;
  private slotFreed: (() => void) | undefined;
  private runs: Promise<void> | undefined;

  constructor(
    private readonly client: ProcessNotificationsClient,
    private readonly sessionId: string,
    private readonly loopId: string,
    private readonly handler: LoopWorkerHandler,
    private readonly options: LoopWorkerOptions = {},
  ) {
    const { concurrency = 1, signal } = options;
    if (!(Number.isSafeInteger(concurrency) && concurrency >= 1)) {
      throw new RangeError(`concurrency must be a positive integer, got ${String(concurrency)}`);
    }
    this.concurrency = concurrency;
    this.waitForOutcome = options.waitForOutcome ?? false;
    if (signal?.aborted) this.stopping.abort(signal.reason);
    else signal?.addEventListener('abort', () => this.stopping.abort(signal.reason), { once: true });
  }

  /**
   * Follows the loop's completions until {@link close} or `signal`, then waits for the handlers
   * running and their consumes. Rejects (after that wait) when the loop's stream fails for good
   * (the client's retry policy gave up, or the token was refused). Once per worker.
   */
  run(): Promise<void> {
    if (this.runs) throw new Error('LoopWorker.run() was called already: a worker runs once');
    this.runs = this.follow();
    return this.runs;
  }

  /** Stops the worker: it takes nothing more, and resolves once the work in flight and its consumes are done. */
  async close(): Promise<void> {
    this.stopping.abort();
    // The run's own failure is its caller's to see.
    await this.runs?.catch(() => undefined);
  }

  private async follow(): Promise<void> {
    const { signal } = this.stopping;
    let failure: { error: unknown } | undefined;
    try {
      for await (const { notification, update } of this.client.completions(this.sessionId, this.loopId, { signal })) {
        if (!this.wanted(notification, update)) continue;
        while (this.running >= this.concurrency) await new Promise<void>((resolve) => (this.slotFreed = resolve));
        if (signal.aborted) break;
        this.start(notification, update);
      }
    } catch (error) {
      failure = { error };
    }
    // Stopping (or a failed stream) lets what was handed out finish, consumes included.
    while (this.work.size > 0) await Promise.all(this.work);
    if (failure) throw failure.error;
  }

  // Each notification once: on `new`, or (waitForOutcome) with the update that brings its outcome.
  private wanted(notification: PendingNotification, update: CompletionUpdate['update']): boolean {
    if (this.inFlight.has(notification.command_id)) return false;
    return this.waitForOutcome ? notification.outcome !== null : update === 'new';
  }

  private start(notification: PendingNotification, update: CompletionUpdate['update']): void {
    this.inFlight.add(notification.command_id);
    this.running++;
    const work = this.handle(notification, update).finally(() => {
      this.inFlight.delete(notification.command_id);
      this.work.delete(work);
    });
    this.work.add(work);
  }

  private async handle(notification: PendingNotification, update: CompletionUpdate['update']): Promise<void> {
    try {
      await this.handler(notification, { update, signal: this.stopping.signal });
    } catch (error) {
      this.report('handler_failed', notification, error);
      return;
    } finally {
      // The slot frees when the handler returns: the next one does not wait for this consume.
      this.running--;
      this.slotFreed?.();
    }
    try {
      await this.client.consume(this.sessionId, this.loopId, notification.command_id);
    } catch (error) {
      this.report('consume_failed', notification, error);
    }
  }

  private report(code: LoopWorkerFailure, notification: PendingNotification, cause: unknown): void {
    const error = new LoopWorkerError(code, notification, { cause });
    try {
      (this.options.onError ?? console.error)(error);
    } catch {
      // A failing onError does not stop the worker: the notification stays pending all the same.
    }
  }
}
