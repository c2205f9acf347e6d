import type { SuccessDisposition } from '../../vocabulary/process-vocabulary.js';

/** The outcome of a successful delivery. */
export interface NotificationDelivery {
  readonly disposition: SuccessDisposition;
  readonly commandId: string;
  /** Journal sequence of the notification's record (the original one on a retry). */
  readonly sequence: number;
  /** False when an identical earlier call already journaled it: this call wrote nothing. */
  readonly appended: boolean;
}
