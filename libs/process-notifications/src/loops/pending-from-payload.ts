import type { TerminalReason, TerminalState } from '../vocabulary/process-vocabulary.js';
import type { PendingProcessNotification } from './pending-process-notification.interface.js';

/** A pending notification from its journaled (canonical, snake_case) payload and sequence. */
export function pendingFromPayload(payload: Readonly<Record<string, unknown>>, sequence: number): PendingProcessNotification {
  return {
    commandId: payload.command_id as string,
    sessionId: payload.session_id as string,
    loopId: payload.loop_id as string,
    processHandle: payload.process_handle as string,
    state: payload.state as TerminalState,
    reason: payload.reason as TerminalReason,
    sequence,
  };
}
