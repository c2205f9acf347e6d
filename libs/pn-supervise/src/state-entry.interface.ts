import type { TerminalPair } from 'process-notifications-contract';
import type { ProcessIdentityValue } from './process-identity.js';

/** A record of an entry, in the order they are published. */
export type EntryRecordKey = 'started' | 'stop_requested' | 'completed' | 'lost' | 'notification';

/** How the command ended, mapped to the contract's vocabulary; written before anything is published. */
export type EntryCompletion = TerminalPair & {
  readonly has_exit_code?: true;
  readonly exit_code?: number;
  /** Only for `failed` and `lost_on_restore`. */
  readonly diagnostic?: string;
  /**
   * The signal that ended the command (`SIGSEGV`), for the states a signal ends; absent when it
   * exited by itself, and in entries written before the supervisor recorded it.
   */
  readonly signal?: string;
  readonly finished_at: string;
  /** The supervisor's exit status for this command (the command's own, 128 + signal for a signal). */
  readonly exit_status: number;
};

/**
 * What the state directory keeps of one supervised command: every id and timestamp the records
 * about it carry, allocated and written before anything is published, so that any retry (by
 * this run or, after a crash, by the next) sends byte-identical bodies.
 */
export interface StateEntry {
  readonly version: 1;
  readonly command_id: string;
  readonly origin_execution_id: string;
  readonly session_id: string;
  readonly loop_id: string;
  readonly process_handle: string;
  /** Event ids of the lifecycle records, allocated up front. */
  readonly event_ids: Readonly<Record<'started' | 'stop_requested' | 'completed' | 'lost', string>>;
  readonly created_at: string;
  started_at?: string;
  /**
   * The command's process while it runs (kept locally, never sent): a run that takes the entry
   * over ends it if it still runs, before it reports it lost.
   */
  command_process?: ProcessIdentityValue;
  /** Set when the supervisor itself was told to stop while the command ran. */
  stop_request?: { readonly reason: 'interrupted' | 'terminated' };
  completion?: EntryCompletion;
  /** Records the server has answered, so none is sent again needlessly. */
  published: EntryRecordKey[];
  /** A final refusal by the server: kept for inspection, not retried. */
  rejected?: { readonly status: number; readonly code: string; readonly detail: string };
  /** Set once a later run has said that the refused entry is here: no run says it again (`status` still lists it). */
  rejection_announced?: true;
}
