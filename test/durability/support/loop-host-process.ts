import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = resolve(here, '../../..');
const HOST = resolve(repo, 'test/durability/fixtures/loop-host.mjs');

type Line = Record<string, unknown> & { raw: string };

/** A real child process hosting the module on a file database, driven by JSON lines. */
export class LoopHostProcess {
  private nextId = 1;
  private readonly waiters: Array<{ match: (line: Line) => boolean; resolve: (line: Line) => void }> = [];
  readonly lines: Line[] = [];
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (raw) => {
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // Not JSON (e.g. the crash-window announcement): matched on `raw`.
      }
      const line = { ...parsed, raw };
      this.lines.push(line);
      for (const waiter of [...this.waiters]) {
        if (waiter.match(line)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
    // 'close', not 'exit': by then every line it wrote has been read (tests look at `lines` once it is dead).
    this.exited = new Promise((done) => child.once('close', () => done()));
  }

  /** Starts a host on `databaseFile`; resolves once the module is up (restore done). */
  static async start(databaseFile: string, env: Record<string, string> = {}): Promise<LoopHostProcess> {
    const child = spawn(process.execPath, [HOST], {
      env: { ...process.env, PN_DATABASE_URL: `sqlite:${databaseFile}`, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const host = new LoopHostProcess(child);
    await Promise.race([
      host.waitFor((line) => line.ready === true),
      host.exited.then(() => Promise.reject(new Error(`loop host exited before ready: ${stderr}`))),
    ]);
    return host;
  }

  waitFor(match: (line: Line) => boolean): Promise<Line> {
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Sends a command; resolves with its result or rejects with its error. */
  async call<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    this.child.stdin.write(`${JSON.stringify({ id, op, ...args })}\n`);
    const line = await this.waitFor((l) => l.id === id);
    if (line.error) throw Object.assign(new Error(String((line.error as { message: string }).message)), line.error);
    return line.result as T;
  }

  /** Sends a command without waiting for its answer. */
  send(op: string, args: Record<string, unknown> = {}): void {
    this.child.stdin.write(`${JSON.stringify({ id: this.nextId++, op, ...args })}\n`);
  }

  /** SIGKILL: no shutdown hooks, no flush, like a crash. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  async close(): Promise<void> {
    await this.call('close');
    this.child.stdin.end();
    await this.exited;
  }
}
