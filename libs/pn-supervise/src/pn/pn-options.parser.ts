import { LOOP_ENGINES, MAX_CONSUME_BATCH, type LoopEngine } from 'process-notifications-client';
import type { PnCommand, PnCommandLine, PnConnectionOptions } from './pn-command-line.interface.js';
import { PnError } from './pn.error.js';

export const PN_USAGE = `Usage: pn [connection options] COMMAND

  pn session open [--json]        prints export lines for PN_SERVER_URL, PN_SESSION_ID, PN_TOKEN
                                  (needs PN_ADMIN_TOKEN): eval "$(pn session open)"
  pn loop open [--engine native|foreign] [--json]
                                  prints an export line for PN_LOOP_ID: eval "$(pn loop open)"
  pn run [pn-supervise options] -- COMMAND [ARGS...]
                                  runs COMMAND under pn-supervise in the background; prints
                                  command_id=<uuid> and log=<path> once the server took the run
  pn wait COMMAND_ID [--timeout SECONDS] [--json] [--no-outcome]
                                  waits for that completion and exits as a shell would have for
                                  the command (75: nothing came in time)
  pn pending [--json]             the loop's pending notifications, oldest first
  pn consume COMMAND_ID...        consumes each notification
  pn watch [--after SEQUENCE]     one JSON line per completion of the loop, until interrupted
  pn mcp                          an MCP server over stdio for the loop (tools start_command,
                                  wait_for_completion, list_completions, consume)

Connection options (environment variable in brackets):
  --server URL          base URL of the service [PN_SERVER_URL]
  --token TOKEN         the session's bearer token [PN_TOKEN] (visible in the process list:
                        prefer the variable)
  --session ID          session id [PN_SESSION_ID]
  --loop ID             loop id [PN_LOOP_ID]
  --admin-token TOKEN   the admin token, for session open [PN_ADMIN_TOKEN]

Exit statuses: 2 usage error, 69 the server does not answer, 1 the server refused,
75 pn wait ran out of time; pn wait otherwise exits with the command's status.
`;

const CONNECTION_OPTIONS = {
  '--server': 'server',
  '--token': 'token',
  '--session': 'sessionId',
  '--loop': 'loopId',
  '--admin-token': 'adminToken',
} as const satisfies Record<string, keyof PnConnectionOptions>;
type ConnectionOption = keyof typeof CONNECTION_OPTIONS;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** pn-supervise options `pn run` sets itself or relies on: the command id it allocates, the ids line it reads. */
const RUN_OWN_OPTIONS = ['--command-id', '--no-ids'];

/** Options and operands of a subcommand, connection options taken out. */
interface Scanned {
  readonly values: ReadonlyMap<string, string>;
  readonly flags: ReadonlySet<string>;
  readonly operands: readonly string[];
}

/** Reads `pn`'s command line (spec section 16); throws a {@link PnError} `usage` on anything wrong. */
export class PnOptionsParser {
  static parse(argv: readonly string[]): PnCommandLine {
    const connection: Record<string, string> = {};
    // Connection options may come anywhere before the command's `--` (pn run's own).
    const end = argv.indexOf('--');
    const before = end === -1 ? argv : argv.slice(0, end);
    const rest: string[] = [];
    for (let index = 0; index < before.length; index++) {
      const arg = before[index]!;
      const [name, inline] = PnOptionsParser.split(arg);
      if (!Object.hasOwn(CONNECTION_OPTIONS, name)) {
        rest.push(arg);
        continue;
      }
      const value = inline ?? before[++index];
      if (value === undefined || value === '') throw new PnError('usage', `${name} needs a value`);
      connection[CONNECTION_OPTIONS[name as ConnectionOption]] = value;
    }
    const after = end === -1 ? [] : argv.slice(end + 1);
    return { command: PnOptionsParser.command(rest, end !== -1, after), connection };
  }

  /** Whole seconds or decimals, positive, as `--timeout` takes them; in milliseconds. */
  static seconds(option: string, value: string): number {
    const seconds = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0) || seconds > 2_000_000) {
      throw new PnError('usage', `${option} must be a positive number of seconds, got "${value}"`);
    }
    return Math.round(seconds * 1000);
  }

  /** A command id as the API takes it, lower-cased. */
  static uuid(what: string, value: string): string {
    if (!UUID.test(value)) throw new PnError('usage', `${what} must be a UUID, got "${value}"`);
    return value.toLowerCase();
  }

  private static command(words: readonly string[], dashDash: boolean, after: readonly string[]): PnCommand {
    if (words.length === 0 || words.includes('--help') || words.includes('-h') || words[0] === 'help') {
      if (words.length === 0 && !dashDash) throw new PnError('usage', 'no command given');
      return { kind: 'help' };
    }
    const [first, ...more] = words;
    if (first !== 'run' && dashDash) throw new PnError('usage', `pn ${first} takes no "--"`);
    switch (first) {
      case 'session':
      case 'loop': {
        if (more[0] !== 'open')
          throw new PnError('usage', `unknown command "pn ${first} ${more[0] ?? ''}" (did you mean pn ${first} open?)`);
        const engineOption = first === 'loop' ? ['--engine'] : [];
        const { values, flags } = PnOptionsParser.scan(`${first} open`, more.slice(1), engineOption, ['--json'], 0);
        if (first === 'session') return { kind: 'session-open', json: flags.has('--json') };
        const engine = values.get('--engine') ?? 'native';
        if (!(LOOP_ENGINES as readonly string[]).includes(engine)) {
          throw new PnError('usage', `--engine must be one of ${LOOP_ENGINES.join(', ')}, got "${engine}"`);
        }
        return { kind: 'loop-open', json: flags.has('--json'), engine: engine as LoopEngine };
      }
      case 'run':
        return PnOptionsParser.run(more, dashDash, after);
      case 'wait': {
        const { values, flags, operands } = PnOptionsParser.scan('wait', more, ['--timeout'], ['--json', '--no-outcome'], 1);
        const timeout = values.get('--timeout');
        return {
          kind: 'wait',
          commandId: PnOptionsParser.uuid('COMMAND_ID', operands[0]!),
          ...(timeout === undefined ? {} : { timeoutMs: PnOptionsParser.seconds('--timeout', timeout) }),
          json: flags.has('--json'),
          outcome: !flags.has('--no-outcome'),
        };
      }
      case 'pending':
        return { kind: 'pending', json: PnOptionsParser.scan('pending', more, [], ['--json'], 0).flags.has('--json') };
      case 'consume': {
        const { operands } = PnOptionsParser.scan('consume', more, [], [], 'some');
        if (operands.length > MAX_CONSUME_BATCH) throw new PnError('usage', `pn consume takes at most ${MAX_CONSUME_BATCH} command ids`);
        return { kind: 'consume', commandIds: operands.map((id) => PnOptionsParser.uuid('COMMAND_ID', id)) };
      }
      case 'watch': {
        const after = PnOptionsParser.scan('watch', more, ['--after'], [], 0).values.get('--after');
        if (after !== undefined && !(/^\d+$/.test(after) && Number.isSafeInteger(Number(after)))) {
          throw new PnError('usage', `--after must be a journal sequence (a whole number), got "${after}"`);
        }
        return { kind: 'watch', ...(after === undefined ? {} : { after: Number(after) }) };
      }
      case 'mcp':
        PnOptionsParser.scan('mcp', more, [], [], 0);
        return { kind: 'mcp' };
      default:
        throw new PnError('usage', `unknown command "${first}"`);
    }
  }

  /**
   * `pn run [pn-supervise options] -- COMMAND`: the options are pn-supervise's, passed on for it
   * to check; pn reads only `--state-dir` (where the log goes) and keeps the ids to itself.
   */
  private static run(options: readonly string[], dashDash: boolean, argv: readonly string[]): PnCommand {
    if (!dashDash || argv.length === 0 || argv[0] === '') throw new PnError('usage', 'pn run needs the command after "--"');
    let stateDir: string | undefined;
    for (let index = 0; index < options.length; index++) {
      const [name, inline] = PnOptionsParser.split(options[index]!);
      if (RUN_OWN_OPTIONS.includes(name)) throw new PnError('usage', `pn run sets ${name} itself`);
      if (name === '--state-dir') {
        stateDir = inline ?? options[index + 1];
        if (stateDir === undefined || stateDir === '') throw new PnError('usage', '--state-dir needs a value');
      }
    }
    return { kind: 'run', supervisorArgs: options, ...(stateDir === undefined ? {} : { stateDir }), argv };
  }

  /** `--name=value` or `--name`. */
  private static split(arg: string): [string, string | undefined] {
    const equals = arg.indexOf('=');
    return arg.startsWith('--') && equals > 0 ? [arg.slice(0, equals), arg.slice(equals + 1)] : [arg, undefined];
  }

  /** Options and operands of subcommand `what`: `operands` how many it takes (`some`: one or more). */
  private static scan(
    what: string,
    args: readonly string[],
    valueOptions: readonly string[],
    flagNames: readonly string[],
    operands: number | 'some',
  ): Scanned {
    const values = new Map<string, string>();
    const flags = new Set<string>();
    const found: string[] = [];
    for (let index = 0; index < args.length; index++) {
      const [name, inline] = PnOptionsParser.split(args[index]!);
      if (!name.startsWith('-') || name === '-') {
        found.push(name);
      } else if (flagNames.includes(name)) {
        if (inline !== undefined) throw new PnError('usage', `${name} takes no value`);
        flags.add(name);
      } else if (valueOptions.includes(name)) {
        const value = inline ?? args[++index];
        if (value === undefined || value === '') throw new PnError('usage', `${name} needs a value`);
        values.set(name, value);
      } else {
        throw new PnError('usage', `unknown option ${name} for pn ${what}`);
      }
    }
    if (operands === 'some' ? found.length === 0 : found.length !== operands) {
      const wanted = operands === 'some' ? 'one or more COMMAND_IDs' : operands === 0 ? 'no arguments' : 'exactly one COMMAND_ID';
      throw new PnError('usage', `pn ${what} takes ${wanted}${found.length > 0 ? `, got "${found.join(' ')}"` : ''}`);
    }
    return { values, flags, operands: found };
  }
}
