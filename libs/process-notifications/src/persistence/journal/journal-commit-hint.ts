import type { EntityManager } from 'typeorm';
import type { JournalRecordEntity } from './journal-record.entity.js';
import type { StoreDialect } from '../dialects/store-dialect.js';

/** The PostgreSQL channel every committed batch notifies, with the sessions it wrote. */
export const JOURNAL_CHANNEL = 'pn_journal';
/** A notification payload meaning "any session may have new records". */
export const ANY_SESSION = '*';
// NOTIFY payloads must stay under 8000 bytes.
const MAX_NOTIFY_PAYLOAD = 7_900;

/**
 * The payload of the hint for a batch that wrote `records`: the sessions written, comma-separated,
 * or {@link ANY_SESSION} when the list does not fit; undefined when nothing was written.
 */
export function commitHintPayload(records: readonly JournalRecordEntity[]): string | undefined {
  const sessions = new Set(records.map((record) => record.sessionId));
  if (sessions.size === 0) return undefined;
  const listed = [...sessions].join(',');
  return listed.length <= MAX_NOTIFY_PAYLOAD ? listed : ANY_SESSION;
}

/**
 * The commit hint (PostgreSQL): one NOTIFY per batch, sent inside its transaction so it is
 * delivered only if the batch commits (NOTIFY serializes commits, so never one per record).
 * Readers on every node take it as a wake-up, never as data. Off on SQLite (one process).
 */
export class JournalCommitHint {
  constructor(
    private readonly enabled: boolean,
    private readonly dialect: Pick<StoreDialect, 'notify'>,
  ) {}

  async send(manager: EntityManager, records: readonly JournalRecordEntity[]): Promise<void> {
    if (!this.enabled) return;
    const payload = commitHintPayload(records);
    if (payload !== undefined) await this.dialect.notify(manager, JOURNAL_CHANNEL, payload);
  }
}
