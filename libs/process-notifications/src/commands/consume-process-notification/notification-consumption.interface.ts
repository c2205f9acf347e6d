/** The outcome of consuming a notification. */
export interface NotificationConsumption {
  /** False when it had already been consumed (this call wrote nothing). */
  readonly consumed: boolean;
  /** Sequence of the consumed record. */
  readonly sequence: number;
}
