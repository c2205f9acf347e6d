/** The outcome of consuming a notification. */
export interface NotificationConsumption {
  /** False when it had already been consumed (this call wrote nothing). */
  readonly consumed: boolean;
  /** Sequence of the consumed record. */
  readonly sequence: number;
}

/**
 * One command id's answer of a batch consume: as {@link NotificationConsumption}, or `notFound`
 * when no notification of this command id was journaled for the loop (the single consume's 404).
 */
export type NotificationConsumptionResult =
  (NotificationConsumption & { readonly commandId: string }) | { readonly commandId: string; readonly notFound: true };
