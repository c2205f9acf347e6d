import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/** The built supervisor CLI. */
export const SUPERVISOR_MAIN = resolve(repo, 'libs/pn-supervise/dist/main.js');

/** How a supervisor run ended. */
export interface SupervisorExit {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The supervisor CLI as a child process, its stdout and stderr captured. */
export class SupervisorProcess {
  stdout = '';
  stderr = '';
  readonly exit: Promise<SupervisorExit>;
  private readonly listeners: Array<() => void> = [];

  private constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString();
      this.listeners.forEach((listener) => listener());
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      this.listeners.forEach((listener) => listener());
    });
    this.exit = new Promise((done) =>
      child.once('close', (status, signal) => done({ status, signal, stdout: this.stdout, stderr: this.stderr })),
    );
  }

  /**
   * Starts `node main.js ...args`. With `group`, it leads its own process group, so that a test
   * can kill it together with its command. With `wrapper`, that command runs `node main.js ...args`
   * (e.g. `unshare ...`: a supervisor in a PID namespace of its own).
   */
  static start(
    args: readonly string[],
    options: { env?: Record<string, string>; cwd?: string; group?: boolean; wrapper?: readonly string[] } = {},
  ): SupervisorProcess {
    const [command, ...prefix] = [...(options.wrapper ?? []), process.execPath];
    const child = spawn(command!, [...prefix, SUPERVISOR_MAIN, ...args], {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.group ?? false,
    });
    return new SupervisorProcess(child);
  }

  /** Runs it to the end. */
  static run(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<SupervisorExit> {
    return SupervisorProcess.start(args, options).exit;
  }

  /** Resolves once stderr matches `pattern`. */
  waitForStderr(pattern: RegExp): Promise<string> {
    return new Promise((done, fail) => {
      const check = (): void => {
        const match = pattern.exec(this.stderr);
        if (match) done(match[0]);
      };
      this.listeners.push(check);
      void this.exit.then(() => {
        check();
        fail(new Error(`supervisor exited without ${pattern} on stderr: ${this.stderr}`));
      });
      check();
    });
  }

  /** Kills the supervisor's whole process group (it and its command) with SIGKILL. */
  killGroup(): void {
    process.kill(-this.child.pid!, 'SIGKILL');
  }

  /** Kills it if it still runs (cleanup after a failed test). */
  dispose(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-this.child.pid!, 'SIGKILL');
      } catch {
        this.child.kill('SIGKILL');
      }
    }
  }
}
