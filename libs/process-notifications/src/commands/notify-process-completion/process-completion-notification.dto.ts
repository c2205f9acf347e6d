import { CanonicalUuid } from '../../validation/canonical-uuid.decorator.js';
import { ProcessHandle } from '../../validation/process-handle.decorator.js';
import { TerminalPair } from '../../validation/terminal-pair.decorator.js';
import type { InputSchema } from '../../validation/validate-input.js';
import type { TerminalReason, TerminalState } from '../../vocabulary/process-vocabulary.js';
import type { ProcessCompletionNotification } from '../../model/process-completion-notification.interface.js';

/**
 * A process completion notification as the supervisor sends it (snake_case, metadata only).
 * UUIDs are lower-cased on the way in.
 */
export class ProcessCompletionNotificationDto implements ProcessCompletionNotification {
  /** The supervisor's idempotency key, allocated before publishing. */
  @CanonicalUuid()
  readonly command_id: string;

  @CanonicalUuid()
  readonly session_id: string;

  @CanonicalUuid()
  readonly loop_id: string;

  /** Opaque handle of the process: 1 to 128 bytes of `A-Z a-z 0-9 - _`. */
  @ProcessHandle()
  readonly process_handle: string;

  @TerminalPair()
  readonly state: TerminalState;

  @TerminalPair()
  readonly reason: TerminalReason;

  static readonly schema = {
    // The order of checks, and of the journaled payload. Typed by name, so the canonical payload
    // built from it is a ProcessCompletionNotification (a missing field does not compile).
    properties: ['command_id', 'session_id', 'loop_id', 'process_handle', 'state', 'reason'] as const,
    fieldOf: { state: 'state_reason', reason: 'state_reason' },
  } satisfies InputSchema<ProcessCompletionNotificationDto>;
}
