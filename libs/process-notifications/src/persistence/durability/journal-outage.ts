import type { LoggerService } from '@nestjs/common';

// While the store keeps failing, one summary line this often instead of one line per failure.
const SUMMARY_EVERY_MS = 30_000;

/**
 * Whether the journal is failing, and the log of an outage: one line when it starts (with the
 * cause), a count every {@link SUMMARY_EVERY_MS} while it lasts, one line when it ends. A 6 s
 * database outage under load must not print one stack trace per request.
 */
export class JournalOutage {
  private since?: number;
  private failures = 0;
  private reported = 0;
  private lastSummary = 0;

  constructor(
    private readonly logger: LoggerService,
    private readonly now: () => number = Date.now,
  ) {}

  /** True from the first failure until the next transaction that commits. */
  get failing(): boolean {
    return this.since !== undefined;
  }

  /** Counts one failed transaction (a batch, or a repair that did not work). */
  failed(error: unknown): void {
    const now = this.now();
    this.failures += 1;
    if (this.since === undefined) {
      this.since = now;
      this.lastSummary = now;
      this.reported = 1;
      this.logger.error(`journal unavailable: ${messageOf(error)}`);
    } else if (now - this.lastSummary >= SUMMARY_EVERY_MS) {
      this.logger.error(`journal still unavailable: ${this.failures - this.reported} more failed transactions; last: ${messageOf(error)}`);
      this.reported = this.failures;
      this.lastSummary = now;
    }
  }

  /** A transaction committed: the outage, if any, is over. */
  succeeded(): void {
    if (this.since === undefined) return;
    const seconds = ((this.now() - this.since) / 1000).toFixed(1);
    this.logger.log(`journal available again after ${seconds} s and ${this.failures} failed transactions`);
    this.since = undefined;
    this.failures = 0;
  }
}

function messageOf(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const base = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && !base.includes(cause.message) ? `${base} (${cause.message})` : base;
}
