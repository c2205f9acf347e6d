import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The deploy files of docs/production.md against the code they run and the page that shows them.
// No container engine runs here, so the image is not built: what can drift is checked instead
// (its command, the files it copies, its port, health check and variables). Needs `npm run build`.

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const read = (path: string): string => readFileSync(join(repo, path), 'utf8');

const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string>; workspaces: string[] };
/** `start:prod` as words: `node`, its flags, the entry point. */
const START_PROD = packageJson.scripts['start:prod']!.split(' ');

/** Every variable the server's configuration reads (`env.NAME`, `integer(env, 'NAME', ...)`, `onOff(env, 'NAME', ...)`). */
const SERVER_VARIABLES = new Set(
  [...read('src/config/server-config.ts').matchAll(/env\.([A-Z][A-Z0-9_]+)|(?:integer|onOff)\(env, '([A-Z][A-Z0-9_]+)'/g)].map(
    (match) => match[1] ?? match[2]!,
  ),
);
/** A variable the server reads: its configuration's, or OpenTelemetry's standard ones (docs/tracing.md). */
const isServerVariable = (name: string): boolean => SERVER_VARIABLES.has(name) || name.startsWith('OTEL_');

/** The instructions of one Dockerfile stage, continuation lines joined. */
function dockerStages(text: string): Array<{ from: string; lines: string[] }> {
  const stages: Array<{ from: string; lines: string[] }> = [];
  const joined = text.replace(/\\\n/g, ' ');
  for (const raw of joined.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('FROM ')) stages.push({ from: line, lines: [] });
    else stages.at(-1)!.lines.push(line);
  }
  return stages;
}

describe('the deploy files of docs/production.md', () => {
  const stages = dockerStages(read('Dockerfile'));
  const image = stages.at(-1)!;
  const instructions = (stage: { lines: string[] }, keyword: string): string[] =>
    stage.lines.filter((line) => line.startsWith(`${keyword} `)).map((line) => line.slice(keyword.length + 1).trim());

  it('the server reads the variables it is documented to read', () => {
    expect(SERVER_VARIABLES).toEqual(
      new Set([
        'PORT',
        'PN_DATABASE_URL',
        'PN_ADMIN_TOKEN',
        'PN_LOOP_CAPACITY',
        'PN_MAX_LOOPS_PER_SESSION',
        'PN_MAX_STREAMS_PER_SESSION',
        'PN_MAX_ADMIN_STREAMS',
        'PN_JOURNAL_TIMEOUT_MS',
        'PN_RETENTION_DAYS',
        'PN_LOG_LEVEL',
        'PN_NODE_URL',
        'PN_LEASE_TTL_MS',
        'PN_CONSOLE',
        'PN_API_DOCS',
      ]),
    );
    // The environment table of the guide lists each of them, and nothing else of ours.
    const table = read('docs/production.md').split('## The environment')[1]!.split('\n## ')[0]!;
    const documented = new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map((match) => match[1]!));
    expect(new Set([...documented].filter((name) => !name.startsWith('OTEL_')))).toEqual(SERVER_VARIABLES);
  });

  it('Dockerfile: the image runs start:prod’s command as a user without rights, on the port and health check the server has', () => {
    expect(image.from).toMatch(/^FROM node:\d+-slim$/);
    expect(JSON.parse(instructions(image, 'CMD')[0]!)).toEqual(START_PROD);
    expect(instructions(image, 'ENTRYPOINT')).toEqual([]);
    expect(instructions(image, 'USER')).toEqual(['node']);
    const env = Object.fromEntries(
      instructions(image, 'ENV')
        .flatMap((line) => line.split(/\s+/))
        .map((pair) => pair.split('=') as [string, string]),
    );
    expect(Object.keys(env).filter((name) => !isServerVariable(name))).toEqual([]);
    expect(instructions(image, 'EXPOSE')).toEqual([env.PORT]);
    const [healthcheck] = instructions(image, 'HEALTHCHECK');
    expect(healthcheck).toMatch(/CMD \["node", "-e", ".*process\.env\.PORT \|\| 3000.*\/healthz.*"\]$/);
    // The SQLite default lives in the volume the image declares.
    expect(env.PN_DATABASE_URL).toMatch(/^sqlite:\/var\/lib\/process-notifications\//);
    expect(instructions(image, 'VOLUME')).toEqual(['/var/lib/process-notifications']);
  });

  it('Dockerfile: production dependencies only, and every file the server needs, as npm run build makes them', () => {
    const [deps, build] = stages;
    expect(deps!.lines).toContain('RUN npm ci --omit=dev');
    // The workspaces' package.json files, so that npm links them.
    const copied = instructions(deps!, 'COPY').map((line) => line.split(' ')[0]);
    expect(copied).toEqual(['package.json', ...packageJson.workspaces.map((workspace) => `${workspace}/package.json`)]);
    expect(build!.from).toBe('FROM deps AS build');
    expect(build!.lines).toEqual(expect.arrayContaining(['RUN npm ci', 'RUN npm run build']));
    const fromBuild = instructions(image, 'COPY')
      .filter((line) => line.startsWith('--from=build '))
      .map((line) => line.split(' ')[1]!.replace(/^\/app\//, ''));
    expect(fromBuild.sort()).toEqual(
      ['dist/console', 'dist/src', ...packageJson.workspaces.map((workspace) => `${workspace}/dist`)].sort(),
    );
    // What those directories must hold, as `npm run build` leaves them.
    for (const file of ['dist/src/main.js', 'dist/src/migrate.js', 'dist/console/index.html', 'libs/pn-supervise/dist/main.js']) {
      expect({ file, built: existsSync(join(repo, file)) }).toEqual({ file, built: true });
    }
    expect(instructions(image, 'COPY')).toContain('--from=deps /app ./');
    // The build context leaves out what the image builds itself.
    expect(read('.dockerignore').split('\n')).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
  });

  it('compose.yaml: the server’s variables are the server’s, its port is PORT, its database is the postgres service’s', () => {
    const compose = read('compose.yaml');
    const server = compose.split('\n  server:\n')[1]!.split('\nvolumes:')[0]!;
    const environment = Object.fromEntries(
      [...server.split('    environment:\n')[1]!.matchAll(/^ {6}([A-Z][A-Z0-9_]+): (.*)$/gm)].map((match) => [match[1]!, match[2]!]),
    );
    expect(Object.keys(environment).filter((name) => !isServerVariable(name))).toEqual([]);
    expect(Object.keys(environment)).toEqual(expect.arrayContaining(['PORT', 'PN_DATABASE_URL', 'PN_ADMIN_TOKEN']));
    const port = environment.PORT!.replace(/'/g, '');
    expect(server).toContain(`- '127.0.0.1:${port}:${port}'`);
    expect(server).toMatch(/^ {4}build: \.$/m);
    const postgres = compose.split('\n  postgres:\n')[1]!.split('\n  server:\n')[0]!;
    const user = /POSTGRES_USER: (\S+)/.exec(postgres)![1];
    const database = /POSTGRES_DB: (\S+)/.exec(postgres)![1];
    expect(environment.PN_DATABASE_URL).toMatch(
      new RegExp(`^postgres://${user}:\\$\\{POSTGRES_PASSWORD[^}]*\\}@postgres:5432/${database}$`),
    );
    expect(server).toMatch(/stop_grace_period: (\d+)s/);
    // Longer than the server's own drain and hard exit (15 s).
    expect(Number(/stop_grace_period: (\d+)s/.exec(server)![1])).toBeGreaterThan(15);
  });

  it('deploy/pn.service: ExecStart is start:prod’s command; its environment file’s example names only the server’s variables', () => {
    const unit = read('deploy/pn.service');
    const value = (key: string): string => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)![1]!;
    const directory = value('WorkingDirectory');
    const [node, ...args] = value('ExecStart').split(' ');
    expect(node).toBe('/usr/bin/node');
    expect(['node', ...args]).toEqual([...START_PROD.slice(0, -1), `${directory}/${START_PROD.at(-1)}`]);
    expect(value('EnvironmentFile')).toBe('/etc/process-notifications/pn.env');
    expect(Number(value('TimeoutStopSec').replace(/s$/, ''))).toBeGreaterThan(15);
    const example = read('deploy/pn.env.example');
    const names = [...example.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!);
    expect(names.filter((name) => !isServerVariable(name))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['PORT', 'PN_DATABASE_URL', 'PN_ADMIN_TOKEN']));
    expect(unit).not.toMatch(/^Environment=/m);
    // The guide installs these very files.
    const guide = read('docs/production.md');
    expect(guide).toContain('cp deploy/pn.service /etc/systemd/system/pn.service');
    expect(guide).toContain('install -m 600 deploy/pn.env.example /etc/process-notifications/pn.env');
  });

  const systemdAnalyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((path) => existsSync(path));
  (systemdAnalyze ? it : it.skip)('deploy/pn.service: systemd-analyze verify accepts it', () => {
    // Prints nothing and exits 0 for a unit without errors (unknown keys, bad values).
    const result = spawnSync(systemdAnalyze!, ['verify', join(repo, 'deploy/pn.service')], { encoding: 'utf8' });
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
  });
});
