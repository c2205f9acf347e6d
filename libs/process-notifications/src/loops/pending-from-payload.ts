import type { TerminalReason, TerminalState } from '../vocabulary/process-vocabulary.js';
import type { PendingProcessNotification } from './pending-process-notification.interface.js';

/**
 * A pending notification from its journaled (canonical, snake_case) payload and sequence. The
 * session and loop ids are the loop's own strings (equal to the payload's), so the notifications
 * a loop holds share two strings instead of carrying a copy each.
 */
export function pendingFromPayload(
  payload: Readonly<Record<string, unknown>>,
  sequence: number,
  loop: { readonly sessionId: string; readonly loopId: string },
): PendingProcessNotification {
  return {
    commandId: payload.command_id as string,
    sessionId: loop.sessionId,
    loopId: loop.loopId,
    processHandle: payload.process_handle as string,
    state: payload.state as TerminalState,
    reason: payload.reason as TerminalReason,
    sequence,
  };
}
