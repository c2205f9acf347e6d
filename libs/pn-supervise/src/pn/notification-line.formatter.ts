import type { PendingNotification } from 'process-notifications-client';
import { ShellExitStatusMapper } from './shell-exit-status.mapper.js';

/** One notification on one line, for `pn wait` and `pn pending` (spec section 16). */
export class NotificationLineFormatter {
  /** `<command_id> <state> exit_code=<n|-> signal=<name|->`. */
  static waited(notification: PendingNotification): string {
    return `${notification.command_id} ${notification.state} ${NotificationLineFormatter.ending(notification)}`;
  }

  /** `<command_id> <handle> <state> exit_code=<n|-> signal=<name|-> age=<seconds since it ended|->`. */
  static pending(notification: PendingNotification, now: number = Date.now()): string {
    const finished = notification.outcome?.process_finished_at;
    const age = finished == null ? '-' : `${Math.max(0, Math.round((now - Date.parse(finished)) / 1000))}s`;
    return `${notification.command_id} ${notification.process_handle} ${notification.state} ${NotificationLineFormatter.ending(notification)} age=${age}`;
  }

  private static ending(notification: PendingNotification): string {
    return `exit_code=${notification.outcome?.exit_code ?? '-'} signal=${ShellExitStatusMapper.signalOf(notification) ?? '-'}`;
  }
}
