#!/usr/bin/env node
import { StderrReporter } from './stderr.reporter.js';
import { SupervisorOptionsParser, USAGE } from './supervisor-options.parser.js';
import { Supervisor } from './supervisor.js';
import { SupervisorTracing } from './supervisor-tracing.js';
import { UsageError } from './usage.error.js';

/*
 * pn-supervise [options] -- COMMAND [ARGS...]: runs COMMAND for a loop and reports it to the
 * process notifications service (spec section 10). Exits with the command's status.
 */

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = SupervisorOptionsParser.parse(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`pn-supervise: ${error.message}\nRun pn-supervise --help for the options.\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // One trace per run, flushed before the process exits with the command's status.
  const tracing = await SupervisorTracing.start(process.env);
  try {
    return await tracing.run(() => new Supervisor(parsed.options, new StderrReporter(parsed.options.quiet), tracing).run());
  } finally {
    await tracing.shutdown();
  }
}

// Exit only once what was written to stdout and stderr is out.
const exit = (status: number): void => {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(status)));
};

main().then(exit, (error: unknown) => {
  // One line, not a stack trace: e.g. a state directory that cannot be written.
  process.stderr.write(`pn-supervise: ${error instanceof Error ? error.message : String(error)}\n`);
  exit(2);
});
