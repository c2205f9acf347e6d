import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DEFAULT_RETENTION_DAYS, PROCESS_NOTIFICATIONS_OPTIONS } from '../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../process-notifications-options.interface.js';
import { JournalPruning } from '../persistence/journal/journal-pruning.service.js';

const DAY_MS = 24 * 60 * 60 * 1000;
// How often the periodic job runs, and how many payloads one of its transactions drops, so a
// large backlog never holds the write queue for long.
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 1000;

/**
 * Retention: drops old payloads of consumed notifications and lifecycle records, hourly and on
 * demand ({@link prune}). What de-duplication needs (sequence, kind, idempotency id,
 * fingerprint) stays forever, unlike stores that forget keys after a day.
 */
@Injectable()
export class JournalRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(JournalRetention.name);
  private readonly retentionMs: number;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly writer: JournalPruning,
    @Optional() @Inject(PROCESS_NOTIFICATIONS_OPTIONS) options: ProcessNotificationsModuleOptions = {},
  ) {
    const days = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
    if (!Number.isSafeInteger(days) || days < 1)
      throw new Error(`retentionDays must be a positive integer, got ${String(options.retentionDays)}`);
    this.retentionMs = days * DAY_MS;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.prune().catch((error: unknown) => this.logger.warn(`retention run failed: ${(error as Error).message}`));
    }, PRUNE_EVERY_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /**
   * Drops the payloads that are older than the retention period at `now`; returns how many.
   * @param now the clock (tests pass a later instant instead of waiting)
   */
  async prune(now: Date = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.retentionMs).toISOString();
    let dropped = 0;
    for (;;) {
      const count = await this.writer.dropPayloads(cutoff, PRUNE_BATCH);
      dropped += count;
      if (count < PRUNE_BATCH) break;
    }
    if (dropped > 0) this.logger.log(`retention dropped ${dropped} payloads older than ${cutoff}`);
    return dropped;
  }
}
