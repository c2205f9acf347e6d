import { ProcessNotificationsError } from './process-notifications.error.js';

/** Why a loop answered `stopped`. */
export const STOP_CAUSES = ['loop_stopped', 'inbox_full', 'misrouted'] as const;
export type StopCause = (typeof STOP_CAUSES)[number];

/**
 * The loop answered `stopped`. The notification is journaled; retry later with the same
 * `command_id` and an identical payload.
 */
export class DeliveryStoppedError extends ProcessNotificationsError {
  readonly code = 'delivery_stopped';
  override readonly disposition = 'stopped' as const;

  constructor(
    readonly loopId: string,
    readonly stopCause: StopCause,
    /** Whether this call journaled the notification (false: an earlier identical call did). */
    readonly appended = true,
  ) {
    super(`loop ${loopId} answered stopped (${stopCause})`);
  }
}
