import { NetworkError } from './network.error.js';
import { ProblemError } from './problem.error.js';

/** Waits `ms` milliseconds; rejects with the signal's reason once `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Settings of a {@link RetryPolicy}; every one has a default. */
export interface RetryPolicyOptions {
  /** Backoff ceiling before the first retry, doubled on every further one. @default 250 */
  readonly baseDelayMs?: number;
  /** Most the backoff ceiling grows to (a server's `Retry-After` may ask for longer). @default 30000 */
  readonly maxDelayMs?: number;
  /** Attempts in all, the first included. @default Infinity (retry until answered) */
  readonly maxAttempts?: number;
  /** Injected for tests: waits. @default a timer */
  readonly sleep?: Sleep;
  /** Injected for tests: the clock, in epoch milliseconds (reads an HTTP-date `Retry-After`). @default Date.now */
  readonly now?: () => number;
  /** Injected for tests: uniform in [0, 1). @default Math.random */
  readonly random?: () => number;
}

const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Which answers are retried, and how long to wait before the next attempt (spec section 10).
 *
 * Retried: `delivery_stopped` with cause `inbox_full` or `misrouted`, `owner_unavailable`,
 * `journal_unavailable`, 429, any other 5xx and network errors. Everything else is final,
 * `delivery_stopped` with cause `loop_stopped` included. The wait is capped exponential
 * backoff with full jitter, and never shorter than the server's `Retry-After`.
 */
export class RetryPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxAttempts: number;
  readonly sleep: Sleep;
  readonly now: () => number;
  private readonly random: () => number;

  constructor(options: RetryPolicyOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? Infinity;
    this.sleep = options.sleep ?? defaultSleep;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** True when the contract says to send the identical request again after this error. */
  isRetryable(error: unknown): boolean {
    if (error instanceof NetworkError) return true;
    if (!(error instanceof ProblemError)) return false;
    if (error.code === 'delivery_stopped') return error.cause === 'inbox_full' || error.cause === 'misrouted';
    return error.status === 429 || error.status >= 500;
  }

  /** True when attempt number `attempt` (1 = the first) failed with `error` and another may follow. */
  shouldRetry(error: unknown, attempt: number): boolean {
    return attempt < this.maxAttempts && this.isRetryable(error);
  }

  /**
   * Milliseconds to wait after failed attempt number `attempt` (1 = the first): uniform in
   * [0, min(maxDelayMs, baseDelayMs * 2^(attempt-1))), at least the error's `Retry-After`.
   */
  delayMs(attempt: number, error?: unknown): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.max(0, attempt - 1));
    const jittered = Math.floor(this.random() * ceiling);
    const retryAfter = error instanceof ProblemError ? (error.retryAfterMs ?? 0) : 0;
    return Math.max(jittered, retryAfter);
  }

  /**
   * Reads a `Retry-After` header (delay-seconds or an HTTP-date) as milliseconds from now;
   * undefined when absent or unreadable.
   */
  parseRetryAfter(header: string | null | undefined): number | undefined {
    const value = header?.trim();
    if (!value) return undefined;
    if (/^\d+$/.test(value)) return Number(value) * 1000;
    const at = Date.parse(value);
    return Number.isNaN(at) ? undefined : Math.max(0, at - this.now());
  }
}
