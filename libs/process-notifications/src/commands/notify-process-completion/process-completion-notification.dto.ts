import { ApiProperty } from '@nestjs/swagger';
import { CanonicalUuid } from '../../validation/canonical-uuid.decorator.js';
import { ProcessHandle } from '../../validation/process-handle.decorator.js';
import { TerminalPair } from '../../validation/terminal-pair.decorator.js';
import type { InputSchema } from '../../validation/validate-input.js';
import { TERMINAL_PAIRS, TERMINAL_REASONS, type TerminalReason, type TerminalState } from '../../vocabulary/process-vocabulary.js';

/**
 * A process completion notification as the supervisor sends it (snake_case, metadata only).
 * UUIDs are lower-cased on the way in.
 */
export class ProcessCompletionNotificationDto {
  /** The supervisor's idempotency key, allocated before publishing. */
  @ApiProperty({ format: 'uuid', description: 'Idempotency key, allocated by the supervisor before publishing.' })
  @CanonicalUuid()
  readonly command_id: string;

  @ApiProperty({ format: 'uuid' })
  @CanonicalUuid()
  readonly session_id: string;

  @ApiProperty({ format: 'uuid' })
  @CanonicalUuid()
  readonly loop_id: string;

  /** Opaque handle of the process: 1 to 128 bytes of `A-Z a-z 0-9 - _`. */
  @ProcessHandle()
  readonly process_handle: string;

  @ApiProperty({ enum: Object.keys(TERMINAL_PAIRS), description: 'Terminal state; with reason one of the terminal pairs.' })
  @TerminalPair()
  readonly state: TerminalState;

  @ApiProperty({ enum: TERMINAL_REASONS })
  @TerminalPair()
  readonly reason: TerminalReason;

  static readonly schema: InputSchema = {
    properties: ['command_id', 'session_id', 'loop_id', 'process_handle', 'state', 'reason'],
    fieldOf: { state: 'state_reason', reason: 'state_reason' },
  };
}
