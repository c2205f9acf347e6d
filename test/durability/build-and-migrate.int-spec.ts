import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { tempDir } from './support/temp-dir.js';
import { PN_MIGRATIONS } from '../../libs/process-notifications/src/persistence/connection/data-source-options.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ code: number; lines: string[] }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: options.cwd ?? repo, env: { ...process.env, ...options.env } }, (error, stdout, stderr) => {
      done({ code: error ? Number(error.code ?? 1) : 0, lines: `${stdout}${stderr}`.split('\n').filter(Boolean) });
    });
  });
}

describe('building and migrating leave a running server alone', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('the build writes into dist/ in place: only compiled files whose source is gone are removed', async () => {
    mkdirSync(dir.file('src'));
    mkdirSync(dir.file('dist/src'), { recursive: true });
    writeFileSync(dir.file('src/kept.ts'), '');
    for (const file of ['kept.js', 'kept.js.map', 'gone.js', 'gone.js.map', 'data.json']) writeFileSync(dir.file(`dist/src/${file}`), '');
    const pruned = await run([resolve(repo, 'scripts/prune-stale-dist.mjs')], { cwd: dir.path });
    expect(pruned.code).toBe(0);
    expect(
      ['kept.js', 'kept.js.map', 'gone.js', 'gone.js.map', 'data.json'].filter((file) => existsSync(dir.file(`dist/src/${file}`))),
    ).toEqual(['kept.js', 'kept.js.map', 'data.json']);
  });

  it('npm start builds only when a source changed or an output is missing, and fails with a failing build', async () => {
    // A tree with the layout the script reads, whose build counts its runs and makes the outputs.
    for (const path of ['src', 'apps', 'scripts', 'libs/process-notifications/src', 'libs/pn-supervise/src']) {
      mkdirSync(dir.file(path), { recursive: true });
    }
    for (const name of ['process-notifications', 'pn-supervise']) writeFileSync(dir.file(`libs/${name}/package.json`), '{}');
    // The Python client beside the npm packages: no input of the build.
    mkdirSync(dir.file('libs/process-notifications-py/src/process_notifications'), { recursive: true });
    writeFileSync(dir.file('libs/process-notifications-py/pyproject.toml'), '');
    writeFileSync(dir.file('libs/process-notifications-py/src/process_notifications/__init__.py'), '');
    writeFileSync(dir.file('src/main.ts'), 'export {};\n');
    writeFileSync(dir.file('package.json'), JSON.stringify({ scripts: { build: 'node build.mjs' } }));
    const outputs = [
      'dist/src/main.js',
      'dist/console/index.html',
      'libs/process-notifications-contract/dist/index.js',
      'libs/process-notifications/dist/index.js',
      'libs/process-notifications-client/dist/index.js',
      'libs/pn-supervise/dist/main.js',
    ];
    writeFileSync(
      dir.file('build.mjs'),
      [
        "import { appendFileSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';",
        "import { dirname } from 'node:path';",
        "import { execFileSync } from 'node:child_process';",
        "if (existsSync('fail')) process.exit(3);",
        "appendFileSync('builds.log', 'built\\n');",
        `for (const file of ${JSON.stringify(outputs)}) { mkdirSync(dirname(file), { recursive: true }); writeFileSync(file, ''); }`,
        `execFileSync(process.execPath, [${JSON.stringify(resolve(repo, 'scripts/build-if-stale.mjs'))}, '--stamp']);`,
      ].join('\n'),
    );
    const start = () => run([resolve(repo, 'scripts/build-if-stale.mjs')], { cwd: dir.path });
    const builds = (): number =>
      existsSync(dir.file('builds.log')) ? readFileSync(dir.file('builds.log'), 'utf8').split('\n').length - 1 : 0;

    // A first start says what it is doing before the build's silence (issue 48).
    expect(await start()).toEqual({ code: 0, lines: ['building (first start, about 2 minutes)...'] });
    expect(builds()).toBe(1);
    const again = await start();
    expect(again).toEqual({ code: 0, lines: ['build is up to date (npm run build builds anyway)'] });
    expect(builds()).toBe(1);
    // The wheel built in the Python client's folder (spec section 15's command) and its tests run:
    // what they leave there is no source of the build (issue 48: it made the next start rebuild).
    for (const path of [
      'src/process_notifications.egg-info/PKG-INFO',
      'src/process_notifications/__pycache__/client.pyc',
      'build/lib/x.py',
    ]) {
      mkdirSync(dirname(dir.file(`libs/process-notifications-py/${path}`)), { recursive: true });
      writeFileSync(dir.file(`libs/process-notifications-py/${path}`), 'x');
    }
    expect(await start()).toEqual({ code: 0, lines: ['build is up to date (npm run build builds anyway)'] });
    expect(builds()).toBe(1);
    writeFileSync(dir.file('src/main.ts'), 'export const changed = 1;\n');
    expect(await start()).toEqual({ code: 0, lines: ['building (the sources changed since the last build)...'] });
    expect(builds()).toBe(2);
    writeFileSync(dir.file('libs/pn-supervise/src/new.ts'), '');
    expect((await start()).code).toBe(0);
    expect(builds()).toBe(3);
    rmSync(dir.file('dist/console/index.html'));
    expect(await start()).toEqual({ code: 0, lines: ['building (an output is missing)...'] });
    expect(builds()).toBe(4);
    writeFileSync(dir.file('fail'), '');
    writeFileSync(dir.file('src/main.ts'), 'export const broken = 1;\n');
    expect((await start()).code).toBe(3);
    expect(builds()).toBe(4);
  });

  it('migration:run applies the migrations with one line each, not every SQL statement, and then has nothing to do', async () => {
    const database = dir.file('journal.db');
    const env = { PN_DATABASE_URL: `sqlite:${database}` };
    const first = await run(['dist/src/migrate.js'], { env });
    expect(first.code).toBe(0);
    // One line per migration and one for the run, not one per statement.
    expect(first.lines.length).toBeLessThanOrEqual(PN_MIGRATIONS.length + 1);
    for (const line of first.lines) expect(JSON.parse(line)).toMatchObject({ level: 'info' });
    expect(first.lines.join('\n')).not.toMatch(/CREATE|INSERT|SELECT|query:/);
    const db = new Database(database, { readonly: true });
    try {
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'pn_journal'").all()).toHaveLength(1);
    } finally {
      db.close();
    }
    const again = await run(['dist/src/migrate.js'], { env });
    expect(again.code).toBe(0);
    expect(again.lines).toHaveLength(1);
    expect(again.lines[0]).toContain('0 migrations applied now');
  });

  it('migration:run refuses a database it cannot use with one line naming PN_DATABASE_URL', async () => {
    const refused = await run(['dist/src/migrate.js'], { env: { PN_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' } });
    expect(refused.code).toBe(1);
    expect(refused.lines).toHaveLength(1);
    expect(JSON.parse(refused.lines[0]!)).toMatchObject({ level: 'fatal', msg: expect.stringContaining('PN_DATABASE_URL') });
  });
});
