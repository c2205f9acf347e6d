import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CommandEnvironmentFilter } from './command-environment.filter.js';
import type { SupervisorOptions } from './supervisor-options.interface.js';
import { OptionTable, type OptionKinds, type ScannedOptions } from './option-table.js';
import { UsageError } from './usage.error.js';

export const USAGE = `Usage: pn-supervise [options] -- COMMAND [ARGS...]
       pn-supervise status [--state-dir DIR]
       pn-supervise forget COMMAND_ID [--state-dir DIR]

Runs COMMAND for a loop and reports its lifecycle and completion to the process
notifications service. Only metadata is sent; stdin, stdout and stderr pass through.

Options (environment variable in brackets):
  --server URL           base URL of the service [PN_SERVER_URL]
  --token-file PATH      read the session's bearer token from a file (warns when
                         group or others may read it)
  --token TOKEN          the token itself (visible to other local users: prefer
                         PN_TOKEN or --token-file) [PN_TOKEN]; a token is 1 to 4096
                         printable ASCII characters
  --session ID           session id [PN_SESSION_ID]
  --loop ID              loop id [PN_LOOP_ID]
  --handle NAME          process handle (default: the command's base name, made
                         valid, then - and 8 random hex characters)
  --command-id UUID      the completion's command id (default: a new one)
  --pass-env NAME        give the command this PN_* variable of the supervisor's
                         environment (repeatable); without it the command sees
                         none: neither the token nor the other settings
  --state-dir DIR        where undelivered records are kept (default ./.pn-supervisor);
                         must be owned by you, not writable by group or others
                         [PN_SUPERVISOR_STATE_DIR]
  --timeout SECONDS      stop the command after this long (SIGTERM, SIGKILL 5 s later)
  --output-limit BYTES   stop the command once its stdout plus stderr exceed this
  --deadline SECONDS     stop retrying this long after the command ended: keep the
                         entry and exit 75 (default: retry for ever)
  --shutdown-wait SECONDS  after SIGTERM or SIGINT, how long to wait for the server
                         once the command ended (default 10)
  --start-wait SECONDS   before the command runs, how long to wait for the server to
                         answer the check of token, session and loop (default 30);
                         no answer by then: the command is not run, exit 69
  --no-check             run the command without that check (records wait in the
                         state directory while the server is down)
  --quiet                no progress lines on stderr (errors and the ids line are
                         still printed)
  --no-ids               no "command_id=... process_handle=..." line
  --help                 this text

status lists the entries of the state directory; forget removes one whose
supervisor is gone.
`;

/** What the command line asks for. */
export type ParsedCommandLine =
  | { readonly kind: 'help' }
  /** `warnings` are printed on stderr before anything runs. */
  | { readonly kind: 'run'; readonly options: SupervisorOptions; readonly warnings: readonly string[] }
  | { readonly kind: 'status'; readonly stateDir: string }
  | { readonly kind: 'forget'; readonly stateDir: string; readonly commandId: string };

/** pn-supervise's options for a run, by what each takes (the usage above says what each is for). */
const RUN_OPTIONS = {
  '--server': 'value',
  '--token': 'value',
  '--token-file': 'value',
  '--session': 'value',
  '--loop': 'value',
  '--handle': 'value',
  '--command-id': 'value',
  '--state-dir': 'value',
  '--timeout': 'value',
  '--output-limit': 'value',
  '--deadline': 'value',
  '--shutdown-wait': 'value',
  '--start-wait': 'value',
  '--pass-env': 'values',
  '--quiet': 'flag',
  '--no-ids': 'flag',
  '--no-check': 'flag',
} as const satisfies OptionKinds;
type RunOption = keyof typeof RUN_OPTIONS;

// An empty value is a value here: the settings that must not be empty say so themselves.
const RULES = {
  unknown: 'refuse',
  emptyValues: true,
  help: ['--help', '-h'],
  unknownMessage: (_name: string, arg: string) => `unknown option ${arg.replace(/=.*/s, '')}`,
  refuse: (message: string) => new UsageError(message),
} as const;
// A run's options end at `--` or at the command; status and forget take operands among them.
const RUN_TABLE = new OptionTable(RUN_OPTIONS, { ...RULES, operands: 'stop' });
const STATE_TABLE = new OptionTable({ '--state-dir': 'value' }, { ...RULES, operands: 'collect' });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const HANDLE = /^[A-Za-z0-9_-]{1,128}$/;
const MAX_HANDLE_BYTES = 128;
// `-` and 8 hex characters.
const SUFFIX_BYTES = 9;
const DEFAULT_STATE_DIR = './.pn-supervisor';
/** The longest token accepted (the service's own are far shorter). */
export const MAX_TOKEN_BYTES = 4096;
const TOKEN = new RegExp(`^[\\x21-\\x7e]{1,${MAX_TOKEN_BYTES}}$`);
const DEFAULT_SHUTDOWN_WAIT_MS = 10_000;
const DEFAULT_START_WAIT_MS = 30_000;

/** What a run's settings are read from. */
interface RunInput {
  readonly scanned: ScannedOptions;
  readonly env: NodeJS.ProcessEnv;
  readonly command: string;
  readonly args: readonly string[];
  /** Printed on stderr before anything runs. */
  readonly warnings: string[];
}

/** One setting (or a few) of a run, from its option, environment variable or default. */
type RunSetting = (input: RunInput) => Partial<SupervisorOptions>;

// A variable set to blanks is not set.
const fromEnv = (env: NodeJS.ProcessEnv, name: string): string | undefined => (env[name]?.trim() ? env[name]!.trim() : undefined);

/** The value of `option`, else of the variable `envName`; neither (or an empty one) is a usage error. */
function required({ scanned, env }: RunInput, option: RunOption, envName: string): string {
  const value = scanned.values.get(option) ?? fromEnv(env, envName);
  if (value === undefined || value === '') throw new UsageError(`missing ${option} (or ${envName})`);
  return value;
}

/** The setting `field` read from `option` when given, else `fallback` (absent when it has none). */
function optional<F extends keyof SupervisorOptions>(
  option: RunOption,
  field: F,
  read: (value: string) => SupervisorOptions[F],
  fallback?: SupervisorOptions[F],
): RunSetting {
  return ({ scanned }) => {
    const value = scanned.values.get(option);
    if (value !== undefined) return { [field]: read(value) };
    return fallback === undefined ? {} : { [field]: fallback };
  };
}

/** The state directory: the option's, else the environment's, else the default (an empty one is none). */
const stateDirOf = (scanned: ScannedOptions, env: NodeJS.ProcessEnv): string =>
  scanned.values.get('--state-dir') || fromEnv(env, 'PN_SUPERVISOR_STATE_DIR') || DEFAULT_STATE_DIR;

/** Reads the supervisor's command line and environment; throws {@link UsageError} on anything wrong. */
export class SupervisorOptionsParser {
  /** The command's base name with every other character made `-`, short enough for the suffix. */
  static baseHandle(command: string): string {
    const base = command.split(/[\\/]/).filter(Boolean).at(-1) ?? '';
    const handle = base.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, MAX_HANDLE_BYTES - SUFFIX_BYTES);
    return handle || 'command';
  }

  /** A handle that names one run: the base name made valid, `-`, 8 random lower-case hex characters. */
  static handleFor(command: string, random: string = randomBytes(4).toString('hex')): string {
    return `${SupervisorOptionsParser.baseHandle(command)}-${random}`;
  }

  /**
   * A run's settings, in the order they are checked (the first wrong one is the one told), each
   * from its option, environment variable or default.
   */
  private static readonly SETTINGS: readonly RunSetting[] = [
    (input) => ({ server: SupervisorOptionsParser.server(required(input, '--server', 'PN_SERVER_URL')) }),
    (input) => ({ token: SupervisorOptionsParser.token(input) }),
    (input) => ({ sessionId: SupervisorOptionsParser.uuid('--session', required(input, '--session', 'PN_SESSION_ID')) }),
    (input) => ({ loopId: SupervisorOptionsParser.uuid('--loop', required(input, '--loop', 'PN_LOOP_ID')) }),
    ({ scanned, command }) => ({ handle: SupervisorOptionsParser.handle(scanned.values.get('--handle'), command) }),
    optional('--command-id', 'commandId', (value) => SupervisorOptionsParser.uuid('--command-id', value)),
    ({ scanned, env }) => ({ stateDir: stateDirOf(scanned, env) }),
    ({ scanned, env }) => ({
      commandEnv: CommandEnvironmentFilter.filter(env, SupervisorOptionsParser.passEnv(scanned.repeated.get('--pass-env') ?? [])),
    }),
    ({ scanned, command, args }) => ({ quiet: scanned.flags.has('--quiet'), ids: !scanned.flags.has('--no-ids'), command, args }),
    optional('--timeout', 'timeoutMs', (value) => SupervisorOptionsParser.seconds('--timeout', value)),
    optional('--output-limit', 'outputLimit', (value) => SupervisorOptionsParser.outputLimit(value)),
    optional('--deadline', 'deadlineMs', (value) => SupervisorOptionsParser.seconds('--deadline', value)),
    optional(
      '--shutdown-wait',
      'shutdownWaitMs',
      (value) => SupervisorOptionsParser.seconds('--shutdown-wait', value),
      DEFAULT_SHUTDOWN_WAIT_MS,
    ),
    ({ scanned }) => ({ check: !scanned.flags.has('--no-check') }),
    optional('--start-wait', 'startWaitMs', (value) => SupervisorOptionsParser.seconds('--start-wait', value), DEFAULT_START_WAIT_MS),
  ];

  static parse(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
    const subcommand = argv[0];
    if (subcommand === 'status' || subcommand === 'forget') return SupervisorOptionsParser.stateCommand(subcommand, argv.slice(1), env);
    return SupervisorOptionsParser.run(argv, env);
  }

  /** `status` and `forget`: the state directory, and forget's command id. */
  private static stateCommand(subcommand: 'status' | 'forget', argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
    const scanned = STATE_TABLE.scan(argv);
    if (scanned.help) return { kind: 'help' };
    const stateDir = stateDirOf(scanned, env);
    const { operands } = scanned;
    if (subcommand === 'status') {
      if (operands.length > 0) throw new UsageError(`status takes no arguments, got "${operands[0]}"`);
      return { kind: 'status', stateDir };
    }
    if (operands.length !== 1) throw new UsageError('forget needs exactly one COMMAND_ID');
    return { kind: 'forget', stateDir, commandId: SupervisorOptionsParser.uuid('forget COMMAND_ID', operands[0]!) };
  }

  /** A run: the command and the settings, each by its row of {@link SETTINGS}. */
  private static run(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
    const scanned = RUN_TABLE.scan(argv);
    if (scanned.help) return { kind: 'help' };
    const [command, ...args] = scanned.operands;
    if (command === undefined || command === '') throw new UsageError('no command given (put it after --)');
    const input: RunInput = { scanned, env, command, args, warnings: [] };
    const options = Object.assign({}, ...SupervisorOptionsParser.SETTINGS.map((setting) => setting(input))) as SupervisorOptions;
    if (scanned.flags.has('--no-check') && scanned.values.has('--start-wait')) {
      throw new UsageError('give --start-wait or --no-check, not both');
    }
    return { kind: 'run', options, warnings: input.warnings };
  }

  /**
   * The session's token: from `--token-file`, `--token` (which warns: other local users see it)
   * or `PN_TOKEN`; never two of the options.
   */
  private static token({ scanned, env, warnings }: RunInput): string {
    const flag = scanned.values.get('--token');
    const file = scanned.values.get('--token-file');
    if (flag !== undefined && file !== undefined) throw new UsageError('give --token or --token-file, not both');
    if (file !== undefined) return SupervisorOptionsParser.tokenFile(file, warnings);
    if (flag !== undefined) {
      warnings.push('warning: --token is visible to other local users (in the process list); use PN_TOKEN or --token-file');
    }
    const token = flag ?? fromEnv(env, 'PN_TOKEN') ?? '';
    if (token === '') throw new UsageError('missing the token (PN_TOKEN or --token-file)');
    SupervisorOptionsParser.checkToken(token, flag === undefined ? 'PN_TOKEN' : '--token');
    return token;
  }

  /**
   * The token in the file at `path` (one trailing newline, as an editor or `echo` writes it, is
   * not part of it). Read through at most {@link MAX_TOKEN_BYTES} and a few bytes, so a huge or
   * endless file (a device, a pipe) is refused rather than read whole; a file that group or
   * others may read adds a warning.
   */
  private static tokenFile(path: string, warnings: string[]): string {
    const what = `--token-file ${path}`;
    const bytes = Buffer.alloc(MAX_TOKEN_BYTES + 3);
    let length = 0;
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      throw new UsageError(`cannot read ${what}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    try {
      const stat = fstatSync(fd);
      if (stat.isFile() && (stat.mode & 0o044) !== 0) {
        warnings.push(
          `warning: ${what} is readable by group or others (mode ${(stat.mode & 0o777).toString(8)}): anyone who reads it can act as the session; chmod 600 it`,
        );
      }
      for (let read = 1; read > 0 && length < bytes.length; length += read) {
        read = readSync(fd, bytes, length, bytes.length - length, null);
      }
    } catch (error) {
      throw new UsageError(`cannot read ${what}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    } finally {
      closeSync(fd);
    }
    const text = bytes
      .subarray(0, length)
      .toString('latin1')
      .replace(/\r?\n$/, '');
    if (text === '' || /[\r\n]/.test(text)) throw new UsageError(`${what} must hold the token on one line`);
    SupervisorOptionsParser.checkToken(text, what);
    return text;
  }

  /**
   * A token is 1 to {@link MAX_TOKEN_BYTES} printable ASCII characters (a bearer token's
   * alphabet is narrower still): anything else could never be sent in a header, and would be
   * retried for ever as a network error. Never echoed.
   */
  private static checkToken(token: string, source: string): void {
    if (!TOKEN.test(token)) {
      throw new UsageError(
        `the token in ${source} must be 1 to ${MAX_TOKEN_BYTES} printable ASCII characters (no spaces or control characters)`,
      );
    }
  }

  /**
   * The service's base URL: http or https, without a user name or password (the token is the
   * credential; a password in the URL would be printed in every line that names the server,
   * and is never sent). The message never repeats a value that may hold one.
   */
  private static server(value: string): string {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new UsageError(`--server must be an http(s) URL, got ${SupervisorOptionsParser.shown(value)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`--server must be an http(s) URL, got ${SupervisorOptionsParser.shown(value)}`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new UsageError(
        `--server must not hold a user name or password (give the token with PN_TOKEN or --token-file), got ${url.protocol}//...@${url.host}`,
      );
    }
    return value;
  }

  // A malformed --server as it may be shown: not at all when it may hold a password (an `@`).
  private static shown(value: string): string {
    return value.includes('@') ? 'a value with "@" (not repeated: it may hold a password)' : `"${value}"`;
  }

  /** The `--pass-env` names: each a `PN_*` variable, the only ones the command does not get anyway. */
  private static passEnv(names: readonly string[]): string[] {
    for (const name of names) {
      if (!CommandEnvironmentFilter.passable(name)) {
        throw new UsageError(
          `--pass-env takes the name of a PN_* variable (the command gets every other variable anyway), got "${name.replace(/=.*/s, '=...').slice(0, 64)}"`,
        );
      }
    }
    return [...names];
  }

  private static uuid(what: string, value: string): string {
    if (!UUID.test(value) || value === NIL_UUID) throw new UsageError(`${what} must be a UUID, got "${value}"`);
    return value.toLowerCase();
  }

  private static handle(value: string | undefined, command: string): string {
    if (value === undefined) return SupervisorOptionsParser.handleFor(command);
    if (!HANDLE.test(value)) throw new UsageError(`--handle must be 1 to 128 characters of A-Z a-z 0-9 - _, got "${value}"`);
    return value;
  }

  private static seconds(option: string, value: string): number {
    return OptionTable.seconds(option, value, RULES.refuse);
  }

  private static outputLimit(value: string): number {
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw new UsageError(`--output-limit must be a whole number of bytes, got "${value}"`);
    }
    return Number(value);
  }
}
