import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestSession } from '../../supervisor/support/api.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/** The built `pn` CLI. */
export const PN_MAIN = resolve(repo, 'libs/pn-supervise/dist/pn/pn-main.js');

/** How a `pn` run ended. */
export interface PnExit {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment that points `pn` at a test session's loop, as `eval "$(pn session open)"` and `eval "$(pn loop open)"` leave it. */
export function pnEnvironment(session: TestSession): Record<string, string> {
  return { PN_SERVER_URL: session.url, PN_TOKEN: session.token, PN_SESSION_ID: session.sessionId, PN_LOOP_ID: session.loopId };
}

/** `pn` as a child process, stdout and stderr captured. */
export class PnProcess {
  stdout = '';
  stderr = '';
  readonly exit: Promise<PnExit>;

  private constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exit = new Promise((done) =>
      child.once('close', (status, signal) => done({ status, signal, stdout: this.stdout, stderr: this.stderr })),
    );
  }

  /** Starts `node pn-main.js ...args` with `env` on top of this process's environment (PN_* variables of the test runner removed). */
  static start(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): PnProcess {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PN_')));
    return new PnProcess(
      spawn(process.execPath, [PN_MAIN, ...args], { env: { ...env, ...options.env }, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
  }

  /** Runs it to the end. */
  static run(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<PnExit> {
    return PnProcess.start(args, options).exit;
  }

  /** The `command_id=` line `pn run` printed. */
  static commandIdOf(stdout: string): string {
    const match = /^command_id=([0-9a-f-]{36})$/m.exec(stdout);
    if (!match) throw new Error(`no command_id line in ${JSON.stringify(stdout)}`);
    return match[1]!;
  }
}
