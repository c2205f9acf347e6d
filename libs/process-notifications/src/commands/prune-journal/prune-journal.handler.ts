import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { JournalRetention } from '../../journal/journal-retention.service.js';
import { PruneJournalCommand } from './prune-journal.command.js';

/** Prunes the journal now, as the hourly run does ({@link JournalRetention.prune}). */
@CommandHandler(PruneJournalCommand)
export class PruneJournalHandler implements ICommandHandler<PruneJournalCommand> {
  constructor(private readonly retention: JournalRetention) {}

  execute(command: PruneJournalCommand): Promise<number> {
    return this.retention.prune(command.now);
  }
}
