import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import Database from 'better-sqlite3';
import { ServerProcess } from '../support/server-process.js';
import { tempDir } from './support/temp-dir.js';

// Far below the ~28 s a retrying TypeORM connection took (on top of the start-up); most of it is
// Node loading the server, which takes several seconds on a loaded machine.
const EXITS_WITHIN_MS = 20_000;

interface Refusal {
  readonly code: number | null;
  readonly lines: string[];
  readonly elapsedMs: number;
}

async function refusal(env: Record<string, string>, cwd?: string): Promise<Refusal> {
  const started = Date.now();
  const error = await ServerProcess.start(env, { cwd }).then(
    async (server) => {
      await server.stop('SIGKILL');
      return new Error(`server started: ${server.output}`);
    },
    (e: Error) => e,
  );
  const elapsedMs = Date.now() - started;
  const [first, ...output] = error.message.split('\n');
  const code = /server exited \((\d+)\) before listening/.exec(first!)?.[1];
  return { code: code === undefined ? null : Number(code), lines: output.filter(Boolean), elapsedMs };
}

/** The one line, parsed: a JSON log line whose `msg` names the setting. */
function expectOneLine(result: Refusal, setting: string, reason: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.lines).toHaveLength(1);
  const line = JSON.parse(result.lines[0]!) as { level: string; msg: string };
  expect(line.level).toBe('fatal');
  expect(line.msg).toContain(setting);
  expect(line.msg).toMatch(reason);
  expect(result.elapsedMs).toBeLessThan(EXITS_WITHIN_MS);
}

function tablesOf(file: string): string[] {
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name);
  } finally {
    db.close();
  }
}

// Spec section 11: a configuration the server cannot run with ends it at start, exit status 1,
// one line naming the setting and the reason, before any migration runs.
describe('start-up errors: exit 1 at once, one line naming the setting, no migration run', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('a PN_DATABASE_URL of an unsupported kind', async () => {
    const result = await refusal({ PN_DATABASE_URL: 'mysql://admin:s3cret@db.example/x' });
    expectOneLine(result, 'PN_DATABASE_URL', /sqlite:<path>, sqlite::memory: or postgres:\/\//);
    expect(result.lines[0]).not.toContain('s3cret');
  });

  it('an unreachable PostgreSQL, without retrying and without showing the password', async () => {
    const result = await refusal({ PN_DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:1/x' });
    expectOneLine(result, 'PN_DATABASE_URL', /ECONNREFUSED/);
    expect(result.lines[0]).not.toContain('s3cret');
  });

  it('a SQLite path that cannot be opened: a directory, a file that is not a database, a path through a file', async () => {
    mkdirSync(dir.file('a-directory'));
    const garbage = 'this is not SQLite '.repeat(100);
    writeFileSync(dir.file('not-a-database.db'), garbage);
    writeFileSync(dir.file('plain-file'), 'x');
    for (const path of [dir.file('a-directory'), dir.file('not-a-database.db'), `${dir.file('plain-file')}/journal.db`]) {
      const result = await refusal({ PN_DATABASE_URL: `sqlite:${path}` });
      expectOneLine(result, 'PN_DATABASE_URL', /cannot be used: /);
      expect(result.lines[0]).toContain(path);
    }
    // Left as it was: nothing was written into it.
    expect(readFileSync(dir.file('not-a-database.db'), 'utf8')).toBe(garbage);
    // Three starts of the server, each allowed EXITS_WITHIN_MS.
  }, 120_000);

  it('a SQLite path under /proc, where a directory cannot be made: at once, not a spin', async () => {
    const result = await refusal({ PN_DATABASE_URL: 'sqlite:/proc/pn/x.db' });
    expectOneLine(result, 'PN_DATABASE_URL', /directory \/proc\/pn does not exist/);
  });

  it('a missing directory in an explicit URL is refused, not created (a typo must not go unnoticed)', async () => {
    const missing = dir.file('no-such-dir');
    const result = await refusal({ PN_DATABASE_URL: `sqlite:${missing}/journal.db` });
    expectOneLine(result, 'PN_DATABASE_URL', /does not exist/);
    expect(result.lines[0]).toContain(missing);
    expect(existsSync(missing)).toBe(false);
    // Relative, as the default is, but not the default: refused too.
    const relative = await refusal({ PN_DATABASE_URL: 'sqlite:./other/journal.db' }, dir.path);
    expectOneLine(relative, 'PN_DATABASE_URL', /does not exist/);
    expect(existsSync(dir.file('other'))).toBe(false);
  });

  it('the default database creates ./data, and only that directory', async () => {
    const server = await ServerProcess.start({ PN_DATABASE_URL: '' }, { cwd: dir.path });
    try {
      expect(existsSync(dir.file('data/process-notifications.db'))).toBe(true);
    } finally {
      await server.stop('SIGTERM');
    }
  });

  it('a read-only database directory', async () => {
    const readOnly = dir.file('read-only');
    mkdirSync(readOnly);
    // root ignores file modes: a read-only file system is read-only for root too.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', readOnly]);
    else chmodSync(readOnly, 0o555);
    try {
      const result = await refusal({ PN_DATABASE_URL: `sqlite:${readOnly}/journal.db` });
      expectOneLine(result, 'PN_DATABASE_URL', /not writable/);
      expect(result.lines[0]).toContain(readOnly);
      expect(existsSync(`${readOnly}/journal.db`)).toBe(false);
    } finally {
      if (asRoot) execFileSync('umount', [readOnly]);
      else chmodSync(readOnly, 0o755);
    }
  });

  it('a PORT already in use is found before the migrations run', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const database = dir.file('journal.db');
      const result = await refusal({ PORT: String(port), PN_DATABASE_URL: `sqlite:${database}` });
      expectOneLine(result, `PORT ${port}`, /already in use/);
      expect(tablesOf(database)).not.toContain('pn_journal');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it.each([
    ['PORT', 'http'],
    ['PN_LOOP_CAPACITY', '0'],
    ['PN_JOURNAL_TIMEOUT_MS', '5s'],
    ['PN_LOG_LEVEL', 'verbose'],
  ])('a bad %s (%s)', async (name, value) => {
    const database = dir.file('journal.db');
    const result = await refusal({ [name]: value, PN_DATABASE_URL: `sqlite:${database}` });
    expectOneLine(result, name, new RegExp(`"${value}"`));
    expect(existsSync(database)).toBe(false);
  });
});
