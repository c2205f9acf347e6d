import { Command } from '@nestjs/cqrs';

/**
 * Drop the payloads of consumed notifications and lifecycle records older than the module's
 * `retentionDays` at `now` (retention also runs hourly by itself); answered with how many were dropped.
 * @param now the clock, for tests and tools that must not wait; the current time when omitted
 */
export class PruneJournalCommand extends Command<number> {
  constructor(readonly now?: Date) {
    super();
  }
}
