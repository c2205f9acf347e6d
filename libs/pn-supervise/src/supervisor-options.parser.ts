import type { SupervisorOptions } from './supervisor-options.interface.js';
import { UsageError } from './usage.error.js';

export const USAGE = `Usage: pn-supervise [options] -- COMMAND [ARGS...]

Runs COMMAND for a loop and reports its lifecycle and completion to the process
notifications service. Only metadata is sent; stdin, stdout and stderr pass through.

Options (environment variable in brackets):
  --server URL           base URL of the service [PN_SERVER_URL]
  --token TOKEN          the session's bearer token [PN_TOKEN]
  --session ID           session id [PN_SESSION_ID]
  --loop ID              loop id [PN_LOOP_ID]
  --handle NAME          process handle (default: the command's base name, made valid)
  --state-dir DIR        where undelivered records are kept (default ./.pn-supervisor)
                         [PN_SUPERVISOR_STATE_DIR]
  --timeout SECONDS      stop the command after this long (SIGTERM, SIGKILL 5 s later)
  --output-limit BYTES   stop the command once its stdout plus stderr exceed this
  --quiet                no progress lines on stderr (errors are still printed)
  --help                 this text
`;

/** The result of parsing: settings to run with, or the help text to print. */
export type ParsedCommandLine = { readonly help: true } | { readonly help: false; readonly options: SupervisorOptions };

const VALUE_OPTIONS = ['server', 'token', 'session', 'loop', 'handle', 'state-dir', 'timeout', 'output-limit'] as const;
type ValueOption = (typeof VALUE_OPTIONS)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const HANDLE = /^[A-Za-z0-9_-]{1,128}$/;
const MAX_HANDLE_BYTES = 128;

/** Reads the supervisor's command line and environment; throws {@link UsageError} on anything wrong. */
export class SupervisorOptionsParser {
  /** The process handle for a command: its base name with every other character made `-`, at most 128 bytes. */
  static handleFor(command: string): string {
    const base = command.split(/[\\/]/).filter(Boolean).at(-1) ?? '';
    const handle = base.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, MAX_HANDLE_BYTES);
    return handle || 'command';
  }

  static parse(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
    const values: Partial<Record<ValueOption, string>> = {};
    let quiet = false;
    let index = 0;
    for (; index < argv.length; index++) {
      const arg = argv[index]!;
      if (arg === '--') {
        index++;
        break;
      }
      if (!arg.startsWith('-') || arg === '-') break;
      if (arg === '--help' || arg === '-h') return { help: true };
      if (arg === '--quiet') {
        quiet = true;
        continue;
      }
      const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
      const name = flag.slice(2) as ValueOption;
      if (!flag.startsWith('--') || !VALUE_OPTIONS.includes(name)) throw new UsageError(`unknown option ${flag}`);
      const value = inline ?? argv[++index];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      values[name] = value;
    }
    const [command, ...args] = argv.slice(index);
    if (command === undefined || command === '') throw new UsageError('no command given (put it after --)');

    const fromEnv = (name: string): string | undefined => (env[name]?.trim() ? env[name]!.trim() : undefined);
    const required = (option: ValueOption, envName: string): string => {
      const value = values[option] ?? fromEnv(envName);
      if (value === undefined || value === '') throw new UsageError(`missing --${option} (or ${envName})`);
      return value;
    };
    const options: SupervisorOptions = {
      server: SupervisorOptionsParser.server(required('server', 'PN_SERVER_URL')),
      token: required('token', 'PN_TOKEN'),
      sessionId: SupervisorOptionsParser.uuid('session', required('session', 'PN_SESSION_ID')),
      loopId: SupervisorOptionsParser.uuid('loop', required('loop', 'PN_LOOP_ID')),
      handle: SupervisorOptionsParser.handle(values.handle, command),
      stateDir: values['state-dir'] || fromEnv('PN_SUPERVISOR_STATE_DIR') || './.pn-supervisor',
      quiet,
      command,
      args,
      ...(values.timeout === undefined ? {} : { timeoutMs: SupervisorOptionsParser.timeout(values.timeout) }),
      ...(values['output-limit'] === undefined ? {} : { outputLimit: SupervisorOptionsParser.outputLimit(values['output-limit']) }),
    };
    return { help: false, options };
  }

  private static server(value: string): string {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new UsageError(`--server must be an http(s) URL, got "${value}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--server must be an http(s) URL, got "${value}"`);
    return value;
  }

  private static uuid(option: string, value: string): string {
    if (!UUID.test(value) || value === NIL_UUID) throw new UsageError(`--${option} must be a UUID, got "${value}"`);
    return value.toLowerCase();
  }

  private static handle(value: string | undefined, command: string): string {
    if (value === undefined) return SupervisorOptionsParser.handleFor(command);
    if (!HANDLE.test(value)) throw new UsageError(`--handle must be 1 to 128 characters of A-Z a-z 0-9 - _, got "${value}"`);
    return value;
  }

  private static timeout(value: string): number {
    const seconds = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0) || seconds > 2_000_000) {
      throw new UsageError(`--timeout must be a positive number of seconds, got "${value}"`);
    }
    return Math.round(seconds * 1000);
  }

  private static outputLimit(value: string): number {
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw new UsageError(`--output-limit must be a whole number of bytes, got "${value}"`);
    }
    return Number(value);
  }
}
