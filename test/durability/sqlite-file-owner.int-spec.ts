import { execFile } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteFileInUseError } from 'nestjs-process-notifications';
import { ServerProcess } from '../support/server-process.js';
import { createTestApp, openSessionWithLoop } from '../support/test-app.js';
import { tempDir } from './support/temp-dir.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

// A node process's exit status and its output, one line each.
function run(args: string[], env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: repo, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      done({ code: error ? Number(error.code ?? 1) : 0, lines: `${stdout}${stderr}`.split('\n').filter(Boolean) });
    });
  });
}

// The server's refusal to start: its exit status and what it wrote.
async function refusedStart(env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  const error = await ServerProcess.start(env).then(
    async (server) => {
      await server.stop('SIGKILL');
      return new Error(`server started: ${server.output}`);
    },
    (e: Error) => e,
  );
  const [first, ...output] = error.message.split('\n');
  return { code: Number(/server exited \((\d+)\) before listening/.exec(first!)?.[1]), lines: output.filter(Boolean) };
}

// Spec section 11's one line: a fatal JSON line naming PN_DATABASE_URL and the owner's lock.
function expectInUse(result: { code: number; lines: string[] }, file: string): void {
  expect(result.code).toBe(1);
  expect(result.lines).toHaveLength(1);
  const line = JSON.parse(result.lines[0]!) as { level: string; msg: string };
  expect(line.level).toBe('fatal');
  expect(line.msg).toContain('PN_DATABASE_URL');
  expect(line.msg).toContain(`the SQLite file ${file} is in use by another process (it holds ${file}.lock)`);
}

// Whether another process can take the lock of `file` now (a plain better-sqlite3, as the lock is).
async function lockFreeFor(file: string): Promise<boolean> {
  const probe =
    `const D = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))}); const db = new D(${JSON.stringify(`${file}.lock`)}, { timeout: 0 });` +
    "try { db.exec('BEGIN EXCLUSIVE'); } catch (e) { process.exit(e.code === 'SQLITE_BUSY' ? 3 : 4); }";
  const { code } = await run(['-e', probe], {});
  if (code !== 0 && code !== 3) throw new Error(`the lock probe failed (${code})`);
  return code === 0;
}

// Issue 45, finding 2: a second server on a SQLite file a first one serves started and answered
// 202 with its own sequence, which the first never saw. One process owns a SQLite file.
describe('one process owns a SQLite file: a second server, or a migration, is refused', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('refuses a second server (by the same path or a link) and migrate with one fatal line, until the first is SIGKILLed', async () => {
    const file = dir.file('journal.db');
    symlinkSync(file, dir.file('link.db'));
    const first = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${file}` });
    try {
      expectInUse(await refusedStart({ PN_DATABASE_URL: `sqlite:${file}` }), file);
      expectInUse(await refusedStart({ PN_DATABASE_URL: `sqlite:${dir.file('link.db')}` }), file);
      expectInUse(await run(['dist/src/migrate.js'], { PN_DATABASE_URL: `sqlite:${file}` }), file);
      // The refusals took nothing from the first: it still owns the file, and serves.
      expect(await lockFreeFor(file)).toBe(false);
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      // No shutdown: the kernel drops the lock with the process.
      await first.stop('SIGKILL');
    }
    const second = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('link.db')}` });
    await second.stop('SIGTERM');
    expect(await lockFreeFor(file)).toBe(true);
  }, 120_000);

  // A link made before the file exists: SQLite creates the file the link names, so the lock must
  // be that file's too (it was `<link>.lock` at first, and a start by the real path ran beside it).
  it('a link to a file not yet created takes the lock of the file it names', async () => {
    const file = dir.file('journal.db');
    symlinkSync(file, dir.file('link.db'));
    const first = await createTestApp({ databaseUrl: `sqlite:${dir.file('link.db')}` });
    try {
      const refused = await createTestApp({ databaseUrl: `sqlite:${file}` }).then(
        async (app) => {
          await app.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: 'sqlite_file_in_use', file });
      expect(await lockFreeFor(file)).toBe(false);
    } finally {
      await first.close();
    }
  });

  it('the embedded module takes the same lock: a second module is refused with SqliteFileInUseError, at once', async () => {
    const file = dir.file('journal.db');
    const first = await createTestApp({ databaseUrl: `sqlite:${file}` });
    try {
      const refused = await createTestApp({ databaseUrl: `sqlite:${file}` }).then(
        async (app) => {
          await app.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(SqliteFileInUseError);
      expect(refused).toMatchObject({ code: 'sqlite_file_in_use', file, lockFile: `${file}.lock` });
      // The refused module's closed lock connection left this process's lock in place.
      expect(await lockFreeFor(file)).toBe(false);
      await openSessionWithLoop(first.service);
    } finally {
      await first.close();
    }
    // Released at close: the next module starts.
    expect(await lockFreeFor(file)).toBe(true);
    const next = await createTestApp({ databaseUrl: `sqlite:${file}` });
    await next.close();
  });
});
