import { constants } from 'node:os';
import type { PendingNotification } from 'process-notifications-client';

/** Exit statuses a shell (or `timeout(1)`) uses, for the rules of spec section 16. */
const STATUS = {
  timedOut: 124,
  lost: 125,
  failed: 127,
  interrupted: 130,
  terminated: 143,
  killed: 137,
  unknownSignal: 1,
} as const;

/**
 * The exit status a shell would have had for the command a notification reports (spec section
 * 16, `pn wait`), by the first rule that applies: state `exited`: its exit code; `timed_out`:
 * 124; `failed`: 127; a `lost` outcome: 125; a signal: 128 + its number here; otherwise
 * `interrupted` 130, `terminated` 143, `killed` 137; a signal this machine does not know: 1.
 */
export class ShellExitStatusMapper {
  static map(notification: PendingNotification, signals: Readonly<Record<string, number>> = constants.signals): number {
    const { outcome } = notification;
    if (notification.state === 'exited' && outcome?.exit_code != null) return outcome.exit_code;
    if (notification.state === 'timed_out') return STATUS.timedOut;
    if (notification.state === 'failed') return STATUS.failed;
    if (outcome?.kind === 'lost') return STATUS.lost;
    const signal = ShellExitStatusMapper.signalOf(notification);
    if (signal !== null) {
      const number = Object.hasOwn(signals, signal) ? signals[signal] : undefined;
      return number === undefined ? STATUS.unknownSignal : 128 + number;
    }
    switch (notification.state) {
      case 'interrupted':
        return STATUS.interrupted;
      case 'terminated':
        return STATUS.terminated;
      case 'killed':
        return STATUS.killed;
      default:
        // `exited` without its exit code, `lost_on_restore` without a lost outcome: not a shell's.
        return STATUS.unknownSignal;
    }
  }

  /**
   * The signal that ended the command, from the outcome (section 16); a server older than
   * `signal` sends none, read as `null`.
   */
  static signalOf(notification: PendingNotification): string | null {
    const signal = notification.outcome?.signal;
    return typeof signal === 'string' && signal !== '' ? signal : null;
  }
}
