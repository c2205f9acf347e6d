import { IsBoolean, IsIn, ValidateIf } from 'class-validator';
import { CanonicalUuid } from '../../validation/canonical-uuid.decorator.js';
import { LifecycleDiagnostic } from '../../validation/lifecycle-diagnostic.decorator.js';
import { LifecycleExitCode } from '../../validation/lifecycle-exit-code.decorator.js';
import { LifecycleTimestamp } from '../../validation/lifecycle-timestamp.decorator.js';
import { ProcessHandle } from '../../validation/process-handle.decorator.js';
import type { InputSchema } from '../../validation/validate-input.js';
import {
  isTerminalPair,
  LIFECYCLE_KINDS,
  PROCESS_STATES,
  STOP_REASONS,
  TERMINAL_REASONS,
  type LifecycleKind,
  type ProcessState,
  type TerminalReason,
} from '../../vocabulary/process-vocabulary.js';

// Optional means absent: JSON null is a value of the wrong type and fails on its field.
const present = (_object: object, value: unknown): boolean => value !== undefined;

/** The kind/state/reason combinations of the contract (section 6). */
function isLifecycleTuple({ kind, state, reason }: ProcessLifecycleRecordDto): boolean {
  switch (kind) {
    case 'started':
    case 'backgrounded':
      return state === 'running' && reason === undefined;
    case 'stop_requested':
      return (state === 'starting' || state === 'running') && reason !== undefined && STOP_REASONS.includes(reason);
    case 'completed':
      return state !== 'lost_on_restore' && isTerminalPair(state, reason);
    case 'lost':
      return state === 'lost_on_restore' && reason === 'lost_on_restore';
  }
}

/** Which optional fields each kind carries (section 6); a zero exit code without the flag is none. */
function hasLifecycleShape(record: ProcessLifecycleRecordDto): boolean {
  const started = record.process_started_at !== undefined;
  const finished = record.process_finished_at !== undefined;
  const exitCode = record.has_exit_code === true;
  switch (record.kind) {
    case 'started':
    case 'backgrounded':
      return started && !finished && !exitCode;
    case 'stop_requested':
      // "No diagnostic" is already enforced by the diagnostic field itself.
      return started === (record.state === 'running') && !finished && !exitCode;
    case 'completed':
      if (!finished) return false;
      if (record.state === 'exited') return started && exitCode;
      if (record.state === 'failed') return !exitCode;
      return started && !exitCode;
    case 'lost':
      return finished && !exitCode;
  }
}

/**
 * A process lifecycle record as the supervisor publishes it (snake_case, metadata only, closed
 * schema). UUIDs are lower-cased on the way in; timestamps are kept exactly as sent.
 */
export class ProcessLifecycleRecordDto {
  /** The supervisor's idempotency key for this record. */
  @CanonicalUuid()
  readonly event_id: string;

  @IsIn(LIFECYCLE_KINDS)
  readonly kind: LifecycleKind;

  @CanonicalUuid()
  readonly session_id: string;

  @CanonicalUuid()
  readonly loop_id: string;

  /** Opaque handle of the process: 1 to 128 bytes of `A-Z a-z 0-9 - _`. */
  @ProcessHandle()
  readonly process_handle: string;

  @CanonicalUuid()
  readonly origin_execution_id: string;

  @IsIn(PROCESS_STATES)
  readonly state: ProcessState;

  @LifecycleTimestamp()
  readonly process_created_at: string;

  @ValidateIf(present)
  @LifecycleTimestamp(['process_created_at'])
  readonly process_started_at?: string;

  @ValidateIf(present)
  @LifecycleTimestamp(['process_created_at', 'process_started_at'])
  readonly process_finished_at?: string;

  @ValidateIf(present)
  @LifecycleDiagnostic()
  readonly diagnostic?: string;

  @ValidateIf(present)
  @IsBoolean()
  readonly has_exit_code?: boolean;

  @ValidateIf(present)
  @LifecycleExitCode()
  readonly exit_code?: number;

  @ValidateIf(present)
  @IsIn(TERMINAL_REASONS)
  readonly reason?: TerminalReason;

  static readonly schema: InputSchema<ProcessLifecycleRecordDto> = {
    // Table order: the order of checks, and of the journaled payload.
    properties: [
      'event_id',
      'kind',
      'session_id',
      'loop_id',
      'process_handle',
      'origin_execution_id',
      'state',
      'process_created_at',
      'process_started_at',
      'process_finished_at',
      'diagnostic',
      'has_exit_code',
      'exit_code',
      'reason',
    ],
    fieldOf: { reason: 'state_reason' },
    checks: [
      { field: 'state_reason', test: isLifecycleTuple, message: 'kind, state and reason must form one of the lifecycle tuples' },
      { field: 'lifecycle_fields', test: hasLifecycleShape, message: 'the optional fields do not fit the record kind' },
    ],
  };
}
