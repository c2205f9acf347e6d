import { CONSUMED_KIND } from './journal-record.entity.js';
import type { JournalDraft } from './journal-draft.interface.js';

// What a consumed record's idempotency id is: this, then the command id it consumes.
const CONSUMED_ID_PREFIX = 'consumed:';

/** The idempotency id of the record that marks the notification `commandId` consumed. */
export function consumedIdOf(commandId: string): string {
  return `${CONSUMED_ID_PREFIX}${commandId}`;
}

/**
 * SQL: the record aliased `consumed` is the consumed record of the notification aliased
 * `notification`. One probe of the journal's unique index (idempotency id, session), by the id
 * {@link consumedIdOf} gives it, read from the index alone: no index of its own is needed (each
 * would be one more random page written per consume, migration 1765500000000), nor its kind (only
 * consumed records have such an id: every other record's is a UUID or `stopped:<loop id>`).
 */
export function consumedRecordOf(consumed: string, notification: string): string {
  return `${consumed}.session_id = ${notification}.session_id
    AND ${consumed}.idempotency_id = ('${CONSUMED_ID_PREFIX}' || ${notification}.idempotency_id)`;
}

/**
 * The record that marks a notification consumed: its cause is the notification's command id, and
 * its idempotency id derives from it, so one notification is consumed at most once per session.
 */
export function consumedRecord(sessionId: string, loopId: string, commandId: string): JournalDraft {
  return {
    sessionId,
    loopId,
    kind: CONSUMED_KIND,
    idempotencyId: consumedIdOf(commandId),
    payload: { command_id: commandId, loop_id: loopId },
    causeCommandId: commandId,
  };
}
