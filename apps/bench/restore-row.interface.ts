/** What one restore row measured: module start times over the same journal, in seconds. */
export interface RestoreResult {
  readonly records: number;
  /** Pending notifications the restore rebuilt (checked against what was written). */
  readonly pending: number;
  /** Start time of each run with the full journal, in run order. */
  readonly startSeconds: readonly number[];
  /** Start time of each run on the same schema, session and loop before the bulk insert. */
  readonly emptyStartSeconds: readonly number[];
}

/** One line of the restore table: starting the module on a large journal. */
export interface RestoreRow {
  readonly id: string;
  readonly label: string;
  readonly database: string;
  run(): Promise<RestoreResult>;
}
