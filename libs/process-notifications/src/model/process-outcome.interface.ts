import type { OutcomeKind } from '../vocabulary/process-vocabulary.js';

/**
 * How a process ended (section 14): the first `completed` or `lost` lifecycle record of the
 * session that names the notification's `command_id`. Absent optional fields are `null`;
 * timestamps exactly as the supervisor sent them.
 */
export interface ProcessOutcome {
  /** The lifecycle record's `event_id`. */
  readonly eventId: string;
  readonly kind: OutcomeKind;
  /** Journal sequence of the lifecycle record. */
  readonly sequence: number;
  readonly hasExitCode: boolean;
  /** The exit code; `null` when the record carried none. */
  readonly exitCode: number | null;
  readonly diagnostic: string | null;
  /** The POSIX signal that ended the command (`SIGSEGV`); `null` when the record named none. */
  readonly signal: string | null;
  readonly processStartedAt: string | null;
  readonly processFinishedAt: string | null;
}
