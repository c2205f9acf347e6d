import { CONSUMED_KIND } from './journal-record.entity.js';
import type { JournalDraft } from './journal-draft.interface.js';

/** The idempotency id of the record that marks the notification `commandId` consumed. */
export function consumedIdOf(commandId: string): string {
  return `consumed:${commandId}`;
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
