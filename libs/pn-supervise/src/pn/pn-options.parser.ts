import { LOOP_ENGINES, MAX_CONSUME_BATCH, type LoopEngine } from 'process-notifications-client';
import type { PnCommand, PnCommandLine, PnConnectionOptions } from './pn-command-line.interface.js';
import { OptionTable, type OptionKinds, type ScannedOptions } from '../option-table.js';
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

/** The connection options, by the setting each gives. */
const CONNECTION_OPTIONS = {
  '--server': 'server',
  '--token': 'token',
  '--session': 'sessionId',
  '--loop': 'loopId',
  '--admin-token': 'adminToken',
} as const satisfies Record<string, keyof PnConnectionOptions>;
type ConnectionOption = keyof typeof CONNECTION_OPTIONS;

// pn refuses an empty value: every option it reads names something.
const RULES = { emptyValues: false, refuse: (message: string) => new PnError('usage', message) } as const;
/** The connection options may come anywhere among the subcommand's words: the others are kept for it. */
const CONNECTION_TABLE = new OptionTable(
  Object.fromEntries(Object.keys(CONNECTION_OPTIONS).map((name) => [name, 'value'])) as Record<ConnectionOption, 'value'>,
  { ...RULES, operands: 'collect', unknown: 'keep' },
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** pn-supervise options `pn run` sets itself or relies on: the command id it allocates, the ids line it reads. */
const RUN_OWN_OPTIONS = ['--command-id', '--no-ids'];
const HELP = ['--help', '-h'];

/** How one subcommand reads its words: those after its name, whether `--` came, and what came after it. */
type Subcommand = (words: readonly string[], dashDash: boolean, after: readonly string[]) => PnCommand;

/** Reads `pn`'s command line (spec section 16); throws a {@link PnError} `usage` on anything wrong. */
export class PnOptionsParser {
  /** Every subcommand, by its name. */
  private static readonly SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
    session: (words) => {
      const { flags } = PnOptionsParser.open('session', words, { '--json': 'flag' });
      return { kind: 'session-open', json: flags.has('--json') };
    },
    loop: (words) => {
      const { values, flags } = PnOptionsParser.open('loop', words, { '--engine': 'value', '--json': 'flag' });
      const engine = values.get('--engine') ?? 'native';
      if (!(LOOP_ENGINES as readonly string[]).includes(engine)) {
        throw new PnError('usage', `--engine must be one of ${LOOP_ENGINES.join(', ')}, got "${engine}"`);
      }
      return { kind: 'loop-open', json: flags.has('--json'), engine: engine as LoopEngine };
    },
    run: (words, dashDash, after) => PnOptionsParser.run(words, dashDash, after),
    wait: (words) => {
      const { values, flags, operands } = PnOptionsParser.scan(
        'wait',
        words,
        { '--timeout': 'value', '--json': 'flag', '--no-outcome': 'flag' },
        1,
      );
      const timeout = values.get('--timeout');
      return {
        kind: 'wait',
        commandId: PnOptionsParser.uuid('COMMAND_ID', operands[0]!),
        ...(timeout === undefined ? {} : { timeoutMs: PnOptionsParser.seconds('--timeout', timeout) }),
        json: flags.has('--json'),
        outcome: !flags.has('--no-outcome'),
      };
    },
    pending: (words) => ({ kind: 'pending', json: PnOptionsParser.scan('pending', words, { '--json': 'flag' }, 0).flags.has('--json') }),
    consume: (words) => {
      const { operands } = PnOptionsParser.scan('consume', words, {}, 'some');
      if (operands.length > MAX_CONSUME_BATCH) throw new PnError('usage', `pn consume takes at most ${MAX_CONSUME_BATCH} command ids`);
      return { kind: 'consume', commandIds: operands.map((id) => PnOptionsParser.uuid('COMMAND_ID', id)) };
    },
    watch: (words) => {
      const after = PnOptionsParser.scan('watch', words, { '--after': 'value' }, 0).values.get('--after');
      if (after !== undefined && !(/^\d+$/.test(after) && Number.isSafeInteger(Number(after)))) {
        throw new PnError('usage', `--after must be a journal sequence (a whole number), got "${after}"`);
      }
      return { kind: 'watch', ...(after === undefined ? {} : { after: Number(after) }) };
    },
    mcp: (words) => {
      PnOptionsParser.scan('mcp', words, {}, 0);
      return { kind: 'mcp' };
    },
  };

  static parse(argv: readonly string[]): PnCommandLine {
    // Connection options may come anywhere before the command's `--` (pn run's own).
    const end = argv.indexOf('--');
    const { values, operands } = CONNECTION_TABLE.scan(end === -1 ? argv : argv.slice(0, end));
    const connection = Object.fromEntries([...values].map(([name, value]) => [CONNECTION_OPTIONS[name as ConnectionOption], value]));
    const after = end === -1 ? [] : argv.slice(end + 1);
    return { command: PnOptionsParser.command(operands, end !== -1, after), connection };
  }

  /** Whole seconds or decimals, positive, as `--timeout` takes them; in milliseconds. */
  static seconds(option: string, value: string): number {
    return OptionTable.seconds(option, value, RULES.refuse);
  }

  /** A command id as the API takes it, lower-cased. */
  static uuid(what: string, value: string): string {
    if (!UUID.test(value)) throw new PnError('usage', `${what} must be a UUID, got "${value}"`);
    return value.toLowerCase();
  }

  /** The subcommand `words` name, by its row of {@link SUBCOMMANDS}; help when asked for (or for no words after `--`). */
  private static command(words: readonly string[], dashDash: boolean, after: readonly string[]): PnCommand {
    if (PnOptionsParser.asksForHelp(words)) {
      if (words.length === 0 && !dashDash) throw new PnError('usage', 'no command given');
      return { kind: 'help' };
    }
    const [first, ...more] = words as [string, ...string[]];
    if (first !== 'run' && dashDash) throw new PnError('usage', `pn ${first} takes no "--"`);
    if (!Object.hasOwn(PnOptionsParser.SUBCOMMANDS, first)) throw new PnError('usage', `unknown command "${first}"`);
    return PnOptionsParser.SUBCOMMANDS[first]!(more, dashDash, after);
  }

  // No words, `help`, or `--help` / `-h` among them (before the command's `--`).
  private static asksForHelp(words: readonly string[]): boolean {
    return words.length === 0 || words[0] === 'help' || words.some((word) => HELP.includes(word));
  }

  /** `pn session open` and `pn loop open`: `open`, then its options and no operands. */
  private static open(first: string, words: readonly string[], options: OptionKinds): ScannedOptions {
    if (words[0] !== 'open') throw new PnError('usage', `unknown command "pn ${first} ${words[0] ?? ''}" (did you mean pn ${first} open?)`);
    return PnOptionsParser.scan(`${first} open`, words.slice(1), options, 0);
  }

  /**
   * `pn run [pn-supervise options] -- COMMAND`: the options are pn-supervise's, passed on for it
   * to check; pn reads only `--state-dir` (where the log goes) and keeps the ids to itself.
   */
  private static run(options: readonly string[], dashDash: boolean, argv: readonly string[]): PnCommand {
    if (!dashDash || argv.length === 0 || argv[0] === '') throw new PnError('usage', 'pn run needs the command after "--"');
    let stateDir: string | undefined;
    for (let index = 0; index < options.length; index++) {
      const [name, inline] = OptionTable.split(options[index]!);
      if (RUN_OWN_OPTIONS.includes(name)) throw new PnError('usage', `pn run sets ${name} itself`);
      if (name === '--state-dir') {
        stateDir = inline ?? options[index + 1];
        if (stateDir === undefined || stateDir === '') throw new PnError('usage', '--state-dir needs a value');
      }
    }
    return { kind: 'run', supervisorArgs: options, ...(stateDir === undefined ? {} : { stateDir }), argv };
  }

  /** Options and operands of subcommand `what`: `operands` how many it takes (`some`: one or more). */
  private static scan(what: string, args: readonly string[], options: OptionKinds, operands: number | 'some'): ScannedOptions {
    const table = new OptionTable(options, {
      ...RULES,
      operands: 'collect',
      unknown: 'refuse',
      unknownMessage: (name) => `unknown option ${name} for pn ${what}`,
    });
    const scanned = table.scan(args);
    const found = scanned.operands;
    if (operands === 'some' ? found.length === 0 : found.length !== operands) {
      const wanted = operands === 'some' ? 'one or more COMMAND_IDs' : operands === 0 ? 'no arguments' : 'exactly one COMMAND_ID';
      throw new PnError('usage', `pn ${what} takes ${wanted}${found.length > 0 ? `, got "${found.join(' ')}"` : ''}`);
    }
    return scanned;
  }
}
