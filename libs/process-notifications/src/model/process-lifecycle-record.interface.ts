import type { LifecycleKind, ProcessState, TerminalReason } from '../vocabulary/process-vocabulary.js';

/**
 * A lifecycle record as journaled and published: the supervisor's snake_case fields in the
 * contract's table order, only those it sent, UUIDs lower-cased, timestamps exactly as sent.
 */
export interface ProcessLifecycleRecord {
  readonly event_id: string;
  readonly kind: LifecycleKind;
  readonly session_id: string;
  readonly loop_id: string;
  readonly process_handle: string;
  readonly origin_execution_id: string;
  readonly state: ProcessState;
  readonly process_created_at: string;
  readonly process_started_at?: string;
  readonly process_finished_at?: string;
  readonly diagnostic?: string;
  readonly has_exit_code?: boolean;
  readonly exit_code?: number;
  readonly reason?: TerminalReason;
  /** On `completed` and `lost`: the `command_id` of the completion notification of the same run. */
  readonly command_id?: string;
}
