import { IdempotencyCollisionError } from '../../errors/idempotency-collision.error.js';
import type { JournalDraft } from './journal-draft.interface.js';
import type { JournalRecordEntity } from './journal-record.entity.js';

/**
 * The collision of `draft` with the record already journaled under its id: the original's
 * sequence and the names of the fields that differ (never their values). A field present on one
 * side only differs too. The original's payload may be gone (retention): then no names.
 */
export function collisionOf(draft: JournalDraft, original: JournalRecordEntity): IdempotencyCollisionError {
  const before = original.payload === null ? null : (JSON.parse(original.payload) as Record<string, unknown> | null);
  if (before === null || typeof before !== 'object') return new IdempotencyCollisionError(draft.idempotencyId, original.sequence);
  const names = new Set([...Object.keys(before), ...Object.keys(draft.payload)]);
  const differing = [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(draft.payload[name])).sort();
  return new IdempotencyCollisionError(draft.idempotencyId, original.sequence, differing);
}
