import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NO_ANSWER_STATUS } from '../supervisor.js';
import { PnError } from './pn.error.js';

/** The supervisor's CLI, beside this one in the package. */
const SUPERVISOR_MAIN = fileURLToPath(new URL('../main.js', import.meta.url));
/** pn-supervise's own default, resolved where `pn` runs. */
const DEFAULT_STATE_DIR = './.pn-supervisor';
const POLL_MS = 50;

/** What to run in the background. */
export interface LaunchRequest {
  /** The command and its arguments. */
  readonly argv: readonly string[];
  /** pn-supervise options, passed on as they are (e.g. `--timeout 60`). */
  readonly supervisorArgs: readonly string[];
  /** The state directory (`--state-dir`, else `PN_SUPERVISOR_STATE_DIR`, else pn-supervise's default). */
  readonly stateDir?: string;
  /** Where the command runs. */
  readonly cwd: string;
  /** The supervisor's environment: the connection settings (the token among them) go here, never in its arguments. */
  readonly env: NodeJS.ProcessEnv;
}

/** A command whose supervisor passed its check before the run. */
export interface Launched {
  readonly commandId: string;
  readonly processHandle: string;
  /** The supervisor's (and the command's) stdout and stderr. */
  readonly logPath: string;
}

/**
 * Starts `pn-supervise --command-id <new id>` for a command in the background (spec section 16,
 * `pn run` and the MCP tool `start_command`): in a session of its own (`detached`, so neither
 * the caller's process group nor its terminal reaches it), with stdin from /dev/null and stdout
 * and stderr appended to `<state dir>/logs/<command id>.log`, not waited for. Resolves once the
 * supervisor printed its ids line, which it does only after its check before the run passed;
 * rejects with its status when it ended before that (2: refused, 69: the server did not answer).
 */
export class SupervisorLauncher {
  static async launch(request: LaunchRequest): Promise<Launched> {
    const stateDir = resolve(request.cwd, request.stateDir ?? (request.env.PN_SUPERVISOR_STATE_DIR?.trim() || DEFAULT_STATE_DIR));
    const commandId = randomUUID();
    // Private, like the state directory pn-supervise requires: the log holds the command's output.
    const logs = join(stateDir, 'logs');
    mkdirSync(logs, { recursive: true, mode: 0o700 });
    const logPath = join(logs, `${commandId}.log`);
    const log = openSync(logPath, 'a', 0o600);
    // The admin token is not the command's business (nor the supervisor's).
    const env = { ...request.env };
    delete env.PN_ADMIN_TOKEN;
    let child;
    try {
      child = spawn(
        process.execPath,
        [SUPERVISOR_MAIN, '--state-dir', stateDir, ...request.supervisorArgs, '--command-id', commandId, '--', ...request.argv],
        { cwd: request.cwd, env, detached: true, stdio: ['ignore', log, log] },
      );
    } finally {
      closeSync(log);
    }
    const idsLine = new RegExp(`^pn-supervise: command_id=${commandId} process_handle=(\\S+)$`, 'm');
    const handleIn = (): string | undefined => idsLine.exec(readFileSync(logPath, 'utf8'))?.[1];
    let ended: number | undefined;
    child.once('exit', (status) => (ended = status ?? 128));
    child.once('error', () => (ended = 126));
    try {
      for (;;) {
        // Read after checking for the end: a supervisor that printed the line and ended since counts as started.
        const before = ended;
        const processHandle = handleIn();
        if (processHandle !== undefined) return { commandId, processHandle, logPath };
        if (before !== undefined) throw SupervisorLauncher.notStarted(before, logPath);
        await new Promise((next) => setTimeout(next, POLL_MS));
      }
    } finally {
      // Not waited for: it outlives the caller.
      child.unref();
    }
  }

  /** Why the command did not run: the supervisor's last line of its own (its one-line reason) and status. */
  private static notStarted(status: number, logPath: string): PnError {
    const last =
      readFileSync(logPath, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('pn-supervise: '))
        .at(-1) ?? `pn-supervise exited with status ${status}`;
    const why = `the command was not run: ${last} (log: ${logPath})`;
    return new PnError(status === NO_ANSWER_STATUS ? 'no_answer' : 'not_started', why);
  }
}
