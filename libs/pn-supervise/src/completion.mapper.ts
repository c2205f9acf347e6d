import { constants } from 'node:os';
import { PROCESS_SIGNAL_PATTERN } from 'process-notifications-contract';
import type { CommandOutcome } from './command-outcome.interface.js';
import type { EntryCompletion } from './state-entry.interface.js';

/** A completion before its timestamp is set. */
export type MappedCompletion = Omit<EntryCompletion, 'finished_at'>;

const signalNumber = (signal: NodeJS.Signals): number => constants.signals[signal] ?? 0;

const SIGNAL_NAME = new RegExp(PROCESS_SIGNAL_PATTERN);

/**
 * The record's `signal` (section 6): the signal the operating system says ended the command, a
 * supervisor's own SIGTERM or SIGKILL included. None when it exited by itself (also after being
 * told to stop), nor for a name outside the contract's pattern, which the server would refuse.
 */
function endingSignal(signal: NodeJS.Signals | null): { readonly signal?: string } {
  return signal !== null && SIGNAL_NAME.test(signal) ? { signal } : {};
}

/**
 * Maps how a command ended to the contract's state/reason pair and to the supervisor's exit
 * status, as spec section 10 says: the command's own status, or 128 + the signal number like
 * a shell; 127 / 126 when it cannot be started.
 */
export class CompletionMapper {
  static map(outcome: CommandOutcome): MappedCompletion {
    if (outcome.kind === 'not_started') {
      const notFound = outcome.errno === 'ENOENT';
      // Names the cause, never the path (nothing but metadata is sent).
      const cause = notFound ? 'command not found' : outcome.errno === 'EACCES' ? 'permission denied' : 'cannot be executed';
      return {
        state: 'failed',
        reason: 'failed',
        diagnostic: `could not start the command: ${cause} (${outcome.errno})`,
        exit_status: notFound ? 127 : 126,
      };
    }
    const ownStatus = outcome.signal ? 128 + signalNumber(outcome.signal) : (outcome.code ?? 0);
    const killed = outcome.escalated || outcome.signal === 'SIGKILL';
    // Every state below may name its signal; `exited` (the last case) never has one.
    const signal = endingSignal(outcome.signal);
    switch (outcome.stopCause) {
      case 'runner_shutdown':
        return {
          state: killed ? 'killed' : 'terminated',
          reason: 'runner_shutdown',
          ...signal,
          exit_status: outcome.shutdownSignal ? 128 + signalNumber(outcome.shutdownSignal) : ownStatus,
        };
      case 'timeout':
        return { state: 'timed_out', reason: 'timed_out', ...signal, exit_status: ownStatus };
      case 'output_limit':
        return { state: killed ? 'killed' : 'terminated', reason: 'output_limit', ...signal, exit_status: ownStatus };
      default:
        break;
    }
    if (outcome.signal === 'SIGINT') return { state: 'interrupted', reason: 'interrupted', ...signal, exit_status: ownStatus };
    if (outcome.signal === 'SIGTERM') return { state: 'terminated', reason: 'terminated', ...signal, exit_status: ownStatus };
    if (outcome.signal) return { state: 'killed', reason: 'killed', ...signal, exit_status: ownStatus };
    return { state: 'exited', reason: 'exited', has_exit_code: true, exit_code: outcome.code ?? 0, exit_status: ownStatus };
  }
}
