import { NetworkError, ProblemError, ProcessNotificationsClient, TimeoutError } from 'process-notifications-client';
import type { PnConnectionOptions } from './pn-command-line.interface.js';
import { PnOptionsParser } from './pn-options.parser.js';
import { PnError } from './pn.error.js';

/** Each connection setting: its option and its environment variable (spec section 16). */
const SETTINGS = {
  server: { option: '--server', variable: 'PN_SERVER_URL' },
  token: { option: '--token', variable: 'PN_TOKEN' },
  sessionId: { option: '--session', variable: 'PN_SESSION_ID' },
  loopId: { option: '--loop', variable: 'PN_LOOP_ID' },
  adminToken: { option: '--admin-token', variable: 'PN_ADMIN_TOKEN' },
} as const satisfies Record<keyof PnConnectionOptions, { option: string; variable: string }>;
type Setting = keyof typeof SETTINGS;

// A request the server does not answer within this long counts as no answer.
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * The service, session and loop `pn` talks to, from its options or else its environment; each
 * setting is checked when a command first needs it (a missing one is a usage error). Turns what
 * the client throws into the {@link PnError} `pn` exits with.
 */
export class PnConnection {
  constructor(
    private readonly options: PnConnectionOptions,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The setting from its option or variable, undefined when neither is set. */
  optional(setting: Setting): string | undefined {
    const value = this.options[setting] ?? this.env[SETTINGS[setting].variable]?.trim();
    return value === '' ? undefined : value;
  }

  /** The setting, or a usage error naming the option and variable that give it. */
  required(setting: Setting): string {
    const value = this.optional(setting);
    if (value === undefined) throw new PnError('usage', `missing ${SETTINGS[setting].option} (or ${SETTINGS[setting].variable})`);
    return value;
  }

  get server(): string {
    const value = this.required('server');
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
      throw new PnError('usage', `--server must be an http(s) URL, got "${value}"`);
    return value;
  }

  get sessionId(): string {
    return PnOptionsParser.uuid('--session (PN_SESSION_ID)', this.required('sessionId'));
  }

  get loopId(): string {
    return PnOptionsParser.uuid('--loop (PN_LOOP_ID)', this.required('loopId'));
  }

  /** A client of the service with the session's token (or `token`). Reads fail fast. */
  client(token: string = this.required('token')): ProcessNotificationsClient {
    return new ProcessNotificationsClient({ baseUrl: this.server, token, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  }

  /**
   * The settings a supervisor started for this loop needs, as its environment (never its
   * arguments: they are visible to every local user).
   */
  supervisorEnvironment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const setting of ['server', 'token', 'sessionId', 'loopId'] as const) {
      const value = this.optional(setting);
      if (value !== undefined) env[SETTINGS[setting].variable] = value;
    }
    return env;
  }

  /**
   * What `pn` says and exits with for `error`: a refusal (4xx) with the problem's code and
   * detail; no answer (a network error, 429, 5xx) naming the server. Anything else is rethrown.
   */
  failure(error: unknown): PnError {
    if (error instanceof PnError) return error;
    if (error instanceof ProblemError) {
      if (error.status === 429 || error.status >= 500) {
        return new PnError('no_answer', `the server at ${this.server} does not answer (${error.status} ${error.code}: ${error.detail})`);
      }
      return new PnError('refused', `the server refused: ${error.code}: ${error.detail}`);
    }
    if (error instanceof NetworkError) return new PnError('no_answer', `the server at ${this.server} does not answer (${error.message})`);
    if (error instanceof TimeoutError) return new PnError('wait_timeout', error.message);
    throw error;
  }
}
