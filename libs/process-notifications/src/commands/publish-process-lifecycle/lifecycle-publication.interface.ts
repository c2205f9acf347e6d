/** The outcome of publishing a lifecycle record. */
export interface LifecyclePublication {
  readonly eventId: string;
  /** Journal sequence of the record (the original one on an identical retry). */
  readonly sequence: number;
  /** False on an identical retry: nothing was written and no event was emitted. */
  readonly appended: boolean;
}
