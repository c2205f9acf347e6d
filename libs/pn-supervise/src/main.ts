#!/usr/bin/env node
import { StateDirectoryCommands } from './state-directory.commands.js';
import { StderrReporter } from './stderr.reporter.js';
import { SupervisorOptionsParser, USAGE } from './supervisor-options.parser.js';
import { Supervisor } from './supervisor.js';
import { SupervisorTracing } from './supervisor-tracing.js';
import { UsageError } from './usage.error.js';

/*
 * pn-supervise [options] -- COMMAND [ARGS...]: runs COMMAND for a loop and reports it to the
 * process notifications service (spec sections 10 and 14). Exits with the command's status.
 * pn-supervise status | forget COMMAND_ID: the state directory.
 */

const line = (stream: NodeJS.WriteStream) => (text: string) => void stream.write(`${text}\n`);
const stderrLine = (text: string): void => line(process.stderr)(`pn-supervise: ${text}`);

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = SupervisorOptionsParser.parse(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`pn-supervise: ${error.message}\nRun pn-supervise --help for the options.\n`);
    return 2;
  }
  switch (parsed.kind) {
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'status':
      return new StateDirectoryCommands(parsed.stateDir, line(process.stdout), stderrLine).status();
    case 'forget':
      return new StateDirectoryCommands(parsed.stateDir, line(process.stdout), stderrLine).forget(parsed.commandId);
    case 'run': {
      parsed.warnings.forEach(stderrLine);
      // One trace per run, flushed before the process exits with the command's status.
      const tracing = await SupervisorTracing.start(process.env);
      try {
        const { options } = parsed;
        return await tracing.run(() => new Supervisor(options, new StderrReporter(options.quiet), tracing).run());
      } finally {
        await tracing.shutdown();
      }
    }
  }
}

// Exit only once what was written to stdout and stderr is out.
const exit = (status: number): void => {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(status)));
};

main().then(exit, (error: unknown) => {
  // One line, not a stack trace: e.g. a state directory that cannot be written.
  stderrLine(error instanceof Error ? error.message : String(error));
  exit(2);
});
