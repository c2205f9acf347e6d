import type { StopCause } from '../vocabulary/process-vocabulary.js';
import { ProcessNotificationsError } from './process-notifications.error.js';

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
