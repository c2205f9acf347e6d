import { execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort().at(-1);
  return version ? join(root, version, 'bin') : undefined;
}

/** A TCP port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A PostgreSQL server of the test's own (initdb into a temporary directory, its own port, run
 * as the `postgres` user), so a test may stop, stall or kill it without touching the machine's
 * shared server.
 */
export class PrivatePostgres {
  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    readonly port: number,
  ) {}

  /** Why a private server cannot run here, or undefined when it can. */
  static unavailable(): string | undefined {
    const bin = binDir();
    if (!bin) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
    if (process.getuid?.() !== 0) return 'not root (initdb must run as the postgres user)';
    return undefined;
  }

  /**
   * Starts a server; `settings` are extra server parameters (`-c name=value`, `listen_addresses`
   * included); `trusted` are client networks (CIDR) let in without a password besides loopback.
   */
  static async start(settings: Record<string, string> = {}, trusted: readonly string[] = []): Promise<PrivatePostgres> {
    const bin = binDir()!;
    const dir = mkdtempSync(join(tmpdir(), 'pn-pg-'));
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
    const port = await freePort();
    const server = new PrivatePostgres(bin, dir, port);
    server.asPostgres('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
    if (trusted.length > 0) appendFileSync(join(dir, 'data', 'pg_hba.conf'), trusted.map((net) => `host all all ${net} trust\n`).join(''));
    server.asPostgres('pg_ctl', [
      '-D',
      join(dir, 'data'),
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off${Object.entries(settings)
        .map(([name, value]) => ` -c ${name}=${value}`)
        .join('')}`,
      'start',
    ]);
    return server;
  }

  /** A URL for the server's `postgres` database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** SIGSTOP (stall) or SIGCONT (resume) the postmaster and every backend. */
  signalAll(signal: 'SIGSTOP' | 'SIGCONT'): void {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, signal);
      } catch {
        // Gone already.
      }
    }
  }

  /** What the server has written to its log so far (its stderr, through `pg_ctl -l`). */
  log(): string {
    return readFileSync(join(this.dir, 'log'), 'utf8');
  }

  async stop(): Promise<void> {
    this.signalAll('SIGCONT');
    try {
      this.asPostgres('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  private pids(): number[] {
    const postmaster = Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
      .toString()
      .split('\n')
      .map(Number)
      .filter(Boolean);
    return [postmaster, ...children];
  }

  private asPostgres(tool: string, args: string[]): void {
    execFileSync(
      'su',
      ['postgres', '-s', '/bin/sh', '-c', [join(this.bin, tool), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')],
      {
        stdio: 'pipe',
      },
    );
  }
}
