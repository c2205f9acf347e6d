import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
// The built server: `npm test` builds before it runs (see the pretest script).
const SERVER_MAIN = resolve(repo, 'dist/src/main.js');
export const ADMIN_TOKEN = 'supervisor-test-admin-token';

/** A loopback port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
    probe.on('error', fail);
  });
}

/** Polls `condition` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(condition: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((next) => setTimeout(next, 50));
  }
}

/** The real server (`node dist/src/main.js`) as a child process, on a file database. */
export class ServerProcess {
  private output = '';
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((done) => child.once('exit', () => done()));
  }

  /**
   * Starts it on `port` and resolves once this very process listens (another server that took
   * the port would answer /healthz too). Without a `port` a free one is picked, and picked again
   * if someone else bound it first.
   */
  static async start(databaseFile: string, options: { port?: number; env?: Record<string, string> } = {}): Promise<ServerProcess> {
    for (let attempt = 1; ; attempt++) {
      const port = options.port ?? (await freePort());
      const child = spawn(process.execPath, [SERVER_MAIN], {
        env: { ...process.env, PORT: String(port), PN_DATABASE_URL: `sqlite:${databaseFile}`, PN_ADMIN_TOKEN: ADMIN_TOKEN, ...options.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const server = new ServerProcess(child, `http://127.0.0.1:${port}`);
      let gone = false;
      void server.exited.then(() => (gone = true));
      const listening = await eventually(() => (gone ? 'exited' : server.output.includes('Listening on port') && 'listening'), 'the server to listen');
      if (listening === 'listening') return server;
      if (options.port !== undefined || attempt === 3) throw new Error(`the server exited before it listened: ${server.output}`);
    }
  }

  /** SIGTERM, and wait for it to exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}
