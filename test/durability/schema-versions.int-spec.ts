import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { PN_MIGRATIONS } from '../../libs/process-notifications/src/persistence/connection/data-source-options.js';
import { inFreshSchema } from '../support/postgres.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { tempDir } from './support/temp-dir.js';

// What an upgrade leaves in the log, and what an older release does on a schema a newer one
// migrated (docs/production.md#upgrades-and-rollbacks): the real server process.

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const NAMES = PN_MIGRATIONS.map((migration) => (new migration() as { name: string }).name);
// A migration of a release newer than this one.
const FUTURE = 'FromANewerRelease9999999999999';

/** Runs a script of dist/ to its end: exit code and JSON lines. */
function run(script: string, databaseUrl: string): Promise<{ code: number; lines: Array<Record<string, unknown>> }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [resolve(repo, script)],
      { env: { ...process.env, PORT: '0', PN_ADMIN_TOKEN: SERVER_ADMIN_TOKEN, PN_DATABASE_URL: databaseUrl } },
      (error, stdout, stderr) =>
        done({
          code: error ? Number(error.code ?? 1) : 0,
          lines: `${stdout}${stderr}`
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        }),
    );
  });
}

const migrationLines = (output: string): string[] =>
  output
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: number | string; context?: string; msg: string })
    .filter((line) => line.context === 'Migrations')
    .map((line) => `${line.level} ${line.msg}`);

async function expectUpgradeLog(databaseUrl: string): Promise<void> {
  const first = await ServerProcess.start({ PN_DATABASE_URL: databaseUrl });
  await first.stop();
  expect(migrationLines(first.output)).toEqual([
    ...NAMES.map((name) => `info applied migration ${name}`),
    `info schema up to date: ${NAMES.length} migrations applied now`,
  ]);
  const again = await ServerProcess.start({ PN_DATABASE_URL: databaseUrl });
  await again.stop();
  expect(migrationLines(again.output)).toEqual([]);
}

async function expectNewerSchemaRefused(databaseUrl: string, addFuture: () => Promise<void>): Promise<void> {
  await (await ServerProcess.start({ PN_DATABASE_URL: databaseUrl })).stop();
  await addFuture();
  for (const script of ['dist/src/main.js', 'dist/src/migrate.js']) {
    const refused = await run(script, databaseUrl);
    expect({ script, code: refused.code }).toEqual({ script, code: 1 });
    // The one documented line, and nothing else above info: no error line with the stack before
    // it (issue 48), nor any stack anywhere in the output.
    expect({ script, lines: refused.lines.filter((line) => line.level !== 'info').map(({ level, msg }) => ({ level, msg })) }).toEqual({
      script,
      lines: [
        {
          level: 'fatal',
          msg:
            `the database schema is newer than this release: it has migration ${FUTURE}, unknown here; ` +
            'run the release that applied it (or a later one), or restore the backup taken before the upgrade',
        },
      ],
    });
    expect(refused.lines.filter((line) => 'err' in line || 'stack' in line)).toEqual([]);
    expect(refused.lines.some((line) => /Listening on port/.test(String(line.msg)))).toBe(false);
  }
}

describe('schema versions', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('SQLite: the server logs each migration it applies, at info, and nothing when there is none', async () => {
    await expectUpgradeLog(`sqlite:${dir.file('journal.db')}`);
  });

  it('SQLite: a release older than the schema refuses to start, with one fatal line naming the newer migration', async () => {
    const file = dir.file('journal.db');
    await expectNewerSchemaRefused(`sqlite:${file}`, async () => {
      const db = new Database(file);
      try {
        db.prepare('INSERT INTO migrations (timestamp, name) VALUES (?, ?)').run(9999999999999, FUTURE);
      } finally {
        db.close();
      }
    });
  });

  it('PostgreSQL: the same log lines, and the same refusal (checked under the migration lock)', async () => {
    await inFreshSchema(async (databaseUrl) => {
      await expectUpgradeLog(databaseUrl);
      await expectNewerSchemaRefused(databaseUrl, async () => {
        const dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 1 }).initialize();
        try {
          await dataSource.query('INSERT INTO migrations (timestamp, name) VALUES ($1, $2)', [9999999999999, FUTURE]);
        } finally {
          await dataSource.destroy();
        }
      });
    });
  }, 60_000);
});
