/** The supervisor's own lines on stderr, each prefixed with its name; progress lines obey `--quiet`. */
export class StderrReporter {
  constructor(private readonly quiet: boolean) {}

  /** A progress line (retries, what is being finished): silenced by `--quiet`. */
  progress(text: string): void {
    if (!this.quiet) this.error(text);
  }

  /** A line the user must see whatever `--quiet` says. */
  error(text: string): void {
    process.stderr.write(`pn-supervise: ${text}\n`);
  }
}
