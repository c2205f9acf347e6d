import { createHash, randomUUID } from 'node:crypto';
import type { JournalDraft } from '../../libs/process-notifications/src/persistence/journal/journal-draft.interface.js';

/**
 * A valid completion notification, keys in the library's canonical order (so its JSON is the
 * journaled payload). The bench and the bulk-journal fixture build their notifications here.
 */
export function benchNotification(
  sessionId: string,
  loopId: string,
  index: number,
  commandId: string = randomUUID(),
): Record<string, string> {
  return {
    command_id: commandId,
    session_id: sessionId,
    loop_id: loopId,
    process_handle: `proc-${index}`,
    state: 'exited',
    reason: 'exited',
  };
}

/** The journal's fingerprint of a payload: SHA-256 of kind and canonical JSON (journal-writer.service.ts). */
export function fingerprintOf(kind: string, payloadJson: string): string {
  return createHash('sha256').update(`${kind}\n${payloadJson}`).digest('hex');
}

/**
 * A notification as the notify handler hands it to the journal writer: its command id is the
 * idempotency id. The id is new unless given; the process handle is `p` unless given.
 */
export function notificationDraft(draft: {
  sessionId: string;
  loopId: string;
  idempotencyId?: string;
  processHandle?: string;
}): JournalDraft {
  const { sessionId, loopId, idempotencyId = randomUUID(), processHandle = 'p' } = draft;
  return {
    sessionId,
    loopId,
    kind: 'process_notification',
    idempotencyId,
    payload: {
      command_id: idempotencyId,
      session_id: sessionId,
      loop_id: loopId,
      process_handle: processHandle,
      state: 'exited',
      reason: 'exited',
    },
  };
}
