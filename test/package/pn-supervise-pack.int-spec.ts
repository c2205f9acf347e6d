import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerProcess } from '../support/server-process.js';
import { TestSession } from '../supervisor/support/api.js';
import { byDefault, expectRun, IDS_LINE } from '../supervisor/support/expect-records.js';
import { startServer } from '../supervisor/support/test-helpers.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

const run = (command: string, args: string[], cwd: string): string =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// What a user who is not in this repository does: install the supervisor's tarball (and the
// client and contract package it depends on) into a project of theirs and run it with npx, from any directory.
describe('pn-supervise, installed from its tarball into a scratch project', () => {
  let project: string;
  let server: ServerProcess;
  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'pn-supervise-host-'));
    server = await startServer(join(project, 'server.db'));
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    rmSync(project, { recursive: true, force: true });
  });

  // Packed as built: `npm test` builds first (pretest), so the prepack build is skipped.
  it('installs, and `npx pn-supervise` runs a command there and reports it', async () => {
    const pack = (dir: string): string =>
      run('npm', ['pack', dir, '--pack-destination', project, '--silent', '--ignore-scripts'], repo).trim().split('\n').at(-1)!;
    const contract = pack('./libs/process-notifications-contract');
    const client = pack('./libs/process-notifications-client');
    const supervisor = pack('./libs/pn-supervise');
    const listing = run('tar', ['-tzf', join(project, supervisor)], project).split('\n');
    expect(listing).toEqual(
      expect.arrayContaining([
        'package/dist/main.js',
        'package/dist/watchdog-main.js',
        'package/dist/pn/pn-main.js',
        'package/package.json',
      ]),
    );
    expect(listing.filter((file) => /spec|\.ts$/.test(file))).toEqual([]);

    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({
        name: 'pn-supervise-host',
        private: true,
        dependencies: {
          'process-notifications-contract': `file:./${contract}`,
          'process-notifications-client': `file:./${client}`,
          'pn-supervise': `file:./${supervisor}`,
        },
      }),
    );
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], project);

    // From a directory below the project, as `make` or an agent would run it.
    const work = join(project, 'work', 'deep');
    mkdirSync(work, { recursive: true });
    const session = await TestSession.open(server.url);
    const result = await new Promise<{ status: number | null; stderr: string }>((done) => {
      const child = execFile('npx', ['pn-supervise', ...session.supervisorArgs, '--', 'sh', '-c', 'echo "ran in $PWD" >&2; exit 4'], {
        cwd: work,
        encoding: 'utf8',
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: string) => (stderr += chunk));
      child.once('close', (status) => done({ status, stderr }));
    });
    expect(result.status).toBe(4);
    expect(result.stderr).toContain(`ran in ${work}`);
    const commandId = IDS_LINE.exec(result.stderr)![1];
    const records = await expectRun(session, { handle: byDefault('sh'), state: 'exited', reason: 'exited', exitCode: 4 });
    expect(records.at(-1)!.idempotency_id).toBe(commandId);
    // The default state directory, where it ran: delivered, so empty.
    expect(readdirSync(join(work, '.pn-supervisor'))).toEqual([]);

    // The package's second bin, pn (spec section 16), with its MCP SDK dependency installed beside it.
    expect(run('npx', ['pn', '--help'], work)).toMatch(/^Usage: pn /);
    const env = {
      ...process.env,
      PN_SERVER_URL: server.url,
      PN_TOKEN: session.token,
      PN_SESSION_ID: session.sessionId,
      PN_LOOP_ID: session.loopId,
    };
    const started = execFileSync('npx', ['pn', 'run', '--', 'sh', '-c', 'exit 5'], { cwd: work, env, encoding: 'utf8' });
    const pnCommandId = /^command_id=(\S+)$/m.exec(started)![1]!;
    const waited = await new Promise<{ status: number | null; stdout: string }>((done) => {
      const child = execFile('npx', ['pn', 'wait', pnCommandId, '--timeout', '60'], { cwd: work, env, encoding: 'utf8' });
      let stdout = '';
      child.stdout!.on('data', (chunk: string) => (stdout += chunk));
      child.once('close', (status) => done({ status, stdout }));
    });
    expect(waited).toEqual({ status: 5, stdout: `${pnCommandId} exited exit_code=5 signal=-\n` });
  }, 240_000);
});
