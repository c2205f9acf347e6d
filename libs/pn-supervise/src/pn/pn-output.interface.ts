/** Where a `pn` command writes: one line at a time, on stdout (results) or stderr (what went wrong). */
export interface PnOutput {
  out(line: string): void;
  err(line: string): void;
}
