#!/usr/bin/env node
import { ConsumeCommand } from './consume.command.js';
import { LoopOpenCommand } from './loop-open.command.js';
import { PnConnection } from './pn-connection.js';
import { PnMcpServer } from './pn-mcp.server.js';
import type { PnCommandLine } from './pn-command-line.interface.js';
import { PN_USAGE, PnOptionsParser } from './pn-options.parser.js';
import type { PnOutput } from './pn-output.interface.js';
import { PnError } from './pn.error.js';
import { PendingCommand } from './pending.command.js';
import { RunCommand } from './run.command.js';
import { SessionOpenCommand } from './session-open.command.js';
import { WaitCommand } from './wait.command.js';
import { WatchCommand } from './watch.command.js';

/*
 * pn: the loop's command line (spec section 16): open a session and a loop, run a command in the
 * background under pn-supervise, wait for how it ended, list, consume and watch completions;
 * `pn mcp` serves the same as MCP tools over stdio.
 */

const output: PnOutput = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

async function main(): Promise<number> {
  let parsed: PnCommandLine;
  try {
    parsed = PnOptionsParser.parse(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof PnError)) throw error;
    output.err(`pn: ${error.message}`);
    output.err('Run pn --help for the commands.');
    return error.status;
  }
  const { command } = parsed;
  const connection = new PnConnection(parsed.connection, process.env);
  try {
    switch (command.kind) {
      case 'help':
        process.stdout.write(PN_USAGE);
        return 0;
      case 'session-open':
        return await new SessionOpenCommand(connection, output).run(command.json);
      case 'loop-open':
        return await new LoopOpenCommand(connection, output).run(command.engine, command.json);
      case 'run':
        return await new RunCommand(connection, output, process.env).run(command);
      case 'wait':
        return await new WaitCommand(connection, output).run(command);
      case 'pending':
        return await new PendingCommand(connection, output).run(command.json);
      case 'consume':
        return await new ConsumeCommand(connection, output).run(command.commandIds);
      case 'watch':
        return await new WatchCommand(connection, output).run(command.after);
      case 'mcp':
        return await new PnMcpServer(connection, process.env).serve();
    }
  } catch (error) {
    if (!(error instanceof PnError)) throw error;
    output.err(`pn: ${error.message}`);
    return error.status;
  }
}

// Exit only once what was written to stdout and stderr is out.
const exit = (status: number): void => {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(status)));
};

main().then(exit, (error: unknown) => {
  // One line, not a stack trace.
  output.err(`pn: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  exit(1);
});
