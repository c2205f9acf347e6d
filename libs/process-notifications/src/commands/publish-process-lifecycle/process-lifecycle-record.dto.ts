import { IsBoolean, IsIn, ValidateIf } from 'class-validator';
import type { ProcessLifecycleRecord } from '../../model/process-lifecycle-record.interface.js';
import { CanonicalUuid } from '../../validation/canonical-uuid.decorator.js';
import { LifecycleCommandId } from '../../validation/lifecycle-command-id.decorator.js';
import { LifecycleDiagnostic } from '../../validation/lifecycle-diagnostic.decorator.js';
import { LifecycleExitCode } from '../../validation/lifecycle-exit-code.decorator.js';
import { LifecycleSignal } from '../../validation/lifecycle-signal.decorator.js';
import { LifecycleTimestamp } from '../../validation/lifecycle-timestamp.decorator.js';
import { ProcessHandle } from '../../validation/process-handle.decorator.js';
import type { InputSchema } from '../../validation/validate-input.js';
import { lifecycleRuleOf } from '../../vocabulary/lifecycle-rules.js';
import {
  LIFECYCLE_KINDS,
  PROCESS_STATES,
  TERMINAL_REASONS,
  type LifecycleKind,
  type ProcessState,
  type TerminalReason,
} from '../../vocabulary/process-vocabulary.js';

// Optional means absent: JSON null is a value of the wrong type and fails on its field.
const present = (_object: object, value: unknown): boolean => value !== undefined;

/** The kind/state/reason combinations of the contract (section 6); false for an unknown kind. */
function isLifecycleTuple({ kind, state, reason }: ProcessLifecycleRecordDto): boolean {
  return lifecycleRuleOf(kind)?.tuple(state, reason) ?? false;
}

/**
 * Which optional fields each kind carries (section 6); a zero exit code without the flag is none.
 * Returns what is wrong, in words a supervisor's author can act on, or undefined when it fits.
 */
function lifecycleShapeProblem(record: ProcessLifecycleRecordDto): string | undefined {
  const { kind, state } = record;
  const rule = lifecycleRuleOf(kind);
  // Never reached through validateInput (kind is checked first), but never a silent pass either.
  if (rule === undefined) return `unknown kind ${String(kind)}`;
  const fault = rule.shape({
    state,
    started: record.process_started_at !== undefined,
    finished: record.process_finished_at !== undefined,
    exitCode: record.has_exit_code === true,
  });
  if (fault === undefined) return undefined;
  const what = rule.byState ? `${kind} with state ${state}` : kind;
  return 'requires' in fault ? `${what} requires ${fault.requires}` : `${what} must not carry ${fault.forbids}`;
}

/**
 * A process lifecycle record as the supervisor publishes it (snake_case, metadata only, closed
 * schema). UUIDs are lower-cased on the way in; timestamps are kept exactly as sent.
 */
export class ProcessLifecycleRecordDto implements ProcessLifecycleRecord {
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

  /**
   * The completion notification that reports the same run (section 14): only on `completed`
   * and `lost`, never equal to `event_id`. Journaled, so it is part of the fingerprint.
   */
  @ValidateIf(present)
  @LifecycleCommandId()
  readonly command_id?: string;

  /**
   * The POSIX signal that ended the command (`SIGSEGV`, section 6): only on `completed` with state
   * `interrupted`, `terminated`, `killed` or `timed_out`. Journaled, so part of the fingerprint.
   */
  @ValidateIf(present)
  @LifecycleSignal()
  readonly signal?: string;

  static readonly schema = {
    // Table order: the order of checks, and of the journaled payload. Typed by name, so the
    // canonical payload built from it is a ProcessLifecycleRecord.
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
      'command_id',
      'signal',
    ] as const,
    fieldOf: { reason: 'state_reason' },
    checks: [
      { field: 'state_reason', test: isLifecycleTuple, message: 'kind, state and reason must form one of the lifecycle tuples' },
      {
        field: 'lifecycle_fields',
        test: (record) => lifecycleShapeProblem(record) === undefined,
        message: (record) => lifecycleShapeProblem(record) ?? '',
      },
    ],
  } satisfies InputSchema<ProcessLifecycleRecordDto>;
}
