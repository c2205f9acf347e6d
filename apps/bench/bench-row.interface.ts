/** What one benchmark row measured. Throughput and latencies are per item. */
export interface BenchResult {
  readonly items: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /**
   * CPU time of the whole process (user + system) over the timed part, when the row measured it:
   * per item, far less sensitive than items/s to other work on the machine.
   */
  readonly cpuSeconds?: number;
}

/**
 * One line of the results table. To add an in-process measurement, write a function returning
 * `BenchRow`s and add it to the producers in main.ts. Restore and HTTP rows measure other
 * things and have their own row types (`RestoreRow`, `HttpRow`) and tables.
 */
export interface BenchRow {
  /** Unique; other rows name it in `floor`. */
  readonly id: string;
  readonly label: string;
  /** Where the data lives, e.g. `memory`, `file`, `postgres`. */
  readonly database: string;
  readonly concurrency: number;
  /** Id of the row this one is compared to (the "x floor" column: its time per item over the floor's). */
  readonly floor?: string;
  run(): Promise<BenchResult>;
}
