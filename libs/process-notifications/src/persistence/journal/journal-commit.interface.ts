/** One committed transaction of the writer. */
export interface JournalCommit {
  /** Jobs committed together. */
  readonly size: number;
  /** From BEGIN to the end of COMMIT. */
  readonly seconds: number;
}
