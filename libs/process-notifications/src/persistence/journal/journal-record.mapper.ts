import type { JournalRecord } from '../../model/journal-record.interface.js';
import type { JournalRecordEntity } from './journal-record.entity.js';

/**
 * A journal row as the domain's {@link JournalRecord}: a new plain value, without the idempotency
 * fingerprint. Called where a record leaves persistence (a commit, a page, an append's answer);
 * a few field copies, next to the transaction that wrote or read it.
 */
export function toDomain(entity: JournalRecordEntity): JournalRecord {
  return {
    sequence: entity.sequence,
    sessionId: entity.sessionId,
    loopId: entity.loopId,
    kind: entity.kind,
    idempotencyId: entity.idempotencyId,
    payload: entity.payload,
    causeCommandId: entity.causeCommandId,
    createdAt: entity.createdAt,
  };
}
