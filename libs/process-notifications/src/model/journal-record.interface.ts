import type { JournalKind } from '../vocabulary/process-vocabulary.js';

/**
 * One committed journal record, as the domain reads it: where it belongs, what it is, and its
 * canonical payload. The store's idempotency fingerprint stays in persistence.
 */
export interface JournalRecord {
  /** Its place in the journal: sequences totally order it. */
  readonly sequence: number;
  readonly sessionId: string;
  /** The loop it concerns, null for a session-wide record. */
  readonly loopId: string | null;
  readonly kind: JournalKind;
  /** Unique within the session: an identical retry finds this record. */
  readonly idempotencyId: string;
  /** Canonical JSON of the payload (fixed key order, UUIDs lower-cased); `null` JSON once retention dropped it. */
  readonly payload: string;
  /** The command id of the notification it answers (a consumed record), else null. */
  readonly causeCommandId: string | null;
  /** Server time of the append, RFC 3339 in UTC. */
  readonly createdAt: string;
}
