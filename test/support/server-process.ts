import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
// The compiled server: `npm test` builds before it runs (see the pretest script).
const MAIN = resolve(repo, 'dist/src/main.js');

/** An admin token valid for PN_ADMIN_TOKEN (at least 32 characters). */
export const SERVER_ADMIN_TOKEN = 'server-process-admin-token-0123456789';

/** The real server (`node dist/src/main.js`) as a child process on a port of its own choosing. */
export class ServerProcess {
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    // 'close', not 'exit': 'exit' can come before the last of the output has been read from the
    // pipes, and tests read `output` once the process has ended.
    this.exited = new Promise((done) => {
      if (child.stdout!.closed && child.stderr!.closed) done({ code: child.exitCode, signal: child.signalCode });
      else child.once('close', (code, signal) => done({ code, signal }));
    });
  }

  /**
   * Starts the server with `env` (PORT=0 unless given), in `cwd` if given, and resolves once it
   * listens. `prefix` runs it through another command that execs it (`ip netns exec <name>`, so
   * the process is the server itself); `host` is where the test reaches it (127.0.0.1).
   */
  static start(
    env: Record<string, string>,
    options: { cwd?: string; prefix?: readonly string[]; host?: string } = {},
  ): Promise<ServerProcess> {
    const [command, ...args] = [...(options.prefix ?? []), process.execPath, MAIN];
    const child = spawn(command!, args, {
      cwd: options.cwd,
      env: { ...process.env, PORT: '0', PN_ADMIN_TOKEN: SERVER_ADMIN_TOKEN, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Promise((resolveStart, reject) => {
      let output = '';
      let server: ServerProcess | undefined;
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (server) server.output = output;
        const port = /Listening on port (\d+)/.exec(output)?.[1];
        if (port && !server) {
          server = new ServerProcess(child, `http://${options.host ?? '127.0.0.1'}:${port}`);
          server.output = output;
          resolveStart(server);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      // Once the pipes are closed too, so that the message holds everything the server wrote.
      child.once('close', (code, signal) => {
        if (!server) reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`));
      });
    });
  }

  /**
   * Resolves with the first match of `pattern` in the output, now or once it is written;
   * rejects after `timeoutMs` with the output so far.
   */
  waitForOutput(pattern: RegExp, timeoutMs = 15_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const match = pattern.exec(this.output);
        if (match) {
          cleanup();
          resolve(match);
        }
        return Boolean(match);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms:\n${this.output}`));
      }, timeoutMs);
      // Registered after the listener that appends to `output`, so it sees every chunk.
      const cleanup = (): void => {
        clearTimeout(timer);
        this.child.stdout!.off('data', check);
        this.child.stderr!.off('data', check);
      };
      if (check()) return;
      this.child.stdout!.on('data', check);
      this.child.stderr!.on('data', check);
    });
  }

  /** Sends a signal and waits for the process to end. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}
