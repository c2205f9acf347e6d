import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { tempDir } from '../durability/support/temp-dir.js';
import type { ServerProcess } from '../support/server-process.js';
import { TestSession } from './support/api.js';
import { byDefault, expectRun } from './support/expect-records.js';
import { SupervisorProcess } from './support/supervisor-process.js';
import { eventually, freePort, startServer } from './support/test-helpers.js';

// Before the command runs, the supervisor asks the server whether it takes the token, session
// and loop; while it waits for a server that does not answer, it says so once and then with
// backoff; a stop signal is explained (issue 40). Against real server processes.

const RETRY_LINE = /^pn-supervise: sending the (?:started|completed) record failed \([^\n]*\); attempt (\d+) in \d+\.\d s/gm;

describe('pn-supervise: the check before the command, and what it says while it waits', () => {
  let dir: ReturnType<typeof tempDir>;
  const servers: ServerProcess[] = [];
  const supervisors: SupervisorProcess[] = [];
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    supervisors.splice(0).forEach((supervisor) => supervisor.dispose());
    await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
    dir.remove();
  });
  const serverOnDisk = async (options: Parameters<typeof startServer>[1] = {}): Promise<ServerProcess> => {
    const server = await startServer(dir.file('server.db'), options);
    servers.push(server);
    return server;
  };
  const startSupervisor = (args: string[]): SupervisorProcess => {
    const supervisor = SupervisorProcess.start(args);
    supervisors.push(supervisor);
    return supervisor;
  };

  it('a wrong token, another session’s token, an unknown loop, a stopped loop: one line, exit 2, the command never runs, nothing kept or sent', async () => {
    const server = await serverOnDisk();
    const session = await TestSession.open(server.url);
    const other = await TestSession.open(server.url);
    const stopped = await TestSession.open(server.url);
    await stopped.stopLoop();
    const tokenFile = dir.file('token');
    const withToken = (token: string): string[] => {
      writeFileSync(tokenFile, token, { mode: 0o600 });
      return [...session.supervisorArgsWithoutToken, '--token-file', tokenFile];
    };
    const cases: Array<[string, () => string[], RegExp]> = [
      ['wrong token', () => withToken('not-the-token'), /the server refused the token, session or loop \(401 unauthorized: /],
      ['another session’s token', () => withToken(other.token), /the server refused the token, session or loop \(403 forbidden: /],
      [
        'unknown loop',
        () => session.supervisorArgs.map((arg) => (arg === session.loopId ? randomUUID() : arg)),
        /the server refused the token, session or loop \(404 loop_not_found: /,
      ],
      ['stopped loop', () => stopped.supervisorArgs, new RegExp(`loop ${stopped.loopId} is stopped: no loop would take the notification`)],
    ];
    for (const [what, args, why] of cases) {
      const stateDir = dir.file(`state-${what.replace(/\W/g, '-')}`);
      const marker = dir.file(`ran-${what.replace(/\W/g, '-')}`);
      const result = await SupervisorProcess.run([...args(), '--state-dir', stateDir, '--', 'touch', marker]);
      expect({ what, status: result.status, ran: existsSync(marker) }).toEqual({ what, status: 2, ran: false });
      // One line: no ids line (no command id was given out), no stack trace.
      expect(result.stderr).toMatch(/^pn-supervise: not running the command: [^\n]+\n$/);
      expect(result.stderr).toMatch(why);
      expect(readdirSync(stateDir)).toEqual([]);
    }
    for (const each of [session, other, stopped]) expect(await each.processRecords()).toEqual([]);
  });

  it('the server down at start: no answer within --start-wait, exit 69, the command never runs', async () => {
    const first = await serverOnDisk();
    const session = await TestSession.open(first.url);
    const closed = `http://127.0.0.1:${await freePort()}`;
    const args = session.supervisorArgs.map((arg) => (arg === first.url ? closed : arg));
    const marker = dir.file('ran');
    const result = await SupervisorProcess.run([...args, '--start-wait', '1', '--state-dir', dir.file('state'), '--', 'touch', marker]);
    expect(result.status).toBe(69);
    expect(existsSync(marker)).toBe(false);
    expect(result.stderr).toMatch(
      /does not answer \(cannot reach [^)]*ECONNREFUSED\)\); waiting up to 1 s \(--start-wait\) before running the command\n/,
    );
    expect(result.stderr).toMatch(
      /^pn-supervise: not running the command: the server at \S+ did not answer within 1 s \(cannot reach [^)]*\)\); --start-wait waits longer, --no-check runs it anyway\n/m,
    );
    expect(readdirSync(dir.file('state'))).toEqual([]);
  });

  it('the server down at start and back within --start-wait: said once, then the command runs and is delivered', async () => {
    const first = await serverOnDisk();
    const port = Number(new URL(first.url).port);
    const session = await TestSession.open(first.url);
    await first.stop('SIGKILL');
    const marker = dir.file('ran');
    const supervisor = startSupervisor([
      ...session.supervisorArgs,
      '--start-wait',
      '120',
      '--state-dir',
      dir.file('state'),
      '--',
      'touch',
      marker,
    ]);
    await supervisor.waitForStderr(/does not answer[^\n]*waiting up to 120 s \(--start-wait\) before running the command\n/);
    expect(existsSync(marker)).toBe(false);
    await serverOnDisk({ port });
    const result = await supervisor.exit;
    expect(result.status).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(result.stderr.match(/does not answer/g)).toHaveLength(1);
    await expectRun(session, { handle: byDefault('touch'), state: 'exited', reason: 'exited', exitCode: 0 });
  }, 120_000);

  it('Ctrl-C while the command runs: says the signal was passed on and the end is still delivered', async () => {
    const server = await serverOnDisk();
    const session = await TestSession.open(server.url);
    const supervisor = startSupervisor([...session.supervisorArgs, '--state-dir', dir.file('state'), '--', 'sleep', '30']);
    await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
    supervisor.child.kill('SIGINT');
    const result = await supervisor.exit;
    expect(result.status).toBe(130);
    expect(result.stderr).toMatch(
      /^pn-supervise: received SIGINT: passed on to the command \(SIGKILL in 5 s if it still runs\); its end is reported as a stop and delivered, waiting at most 10 s \(--shutdown-wait\) for the server; what is not delivered by then stays in \S+ for the next run\n/m,
    );
    await expectRun(session, { handle: byDefault('sleep'), state: 'terminated', reason: 'runner_shutdown', stopRequested: 'interrupted' });
  });

  it('the server gone while the command runs: the end and its status said once, retries said with backoff, Ctrl-C explained', async () => {
    const server = await serverOnDisk();
    const session = await TestSession.open(server.url);
    const go = dir.file('go');
    const supervisor = startSupervisor([
      ...session.supervisorArgs,
      '--state-dir',
      dir.file('state'),
      '--shutdown-wait',
      '1',
      '--',
      'sh',
      '-c',
      `while [ ! -e '${go}' ]; do sleep 0.05; done; exit 3`,
    ]);
    await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
    await server.stop('SIGKILL');
    writeFileSync(go, '');
    // Attempts 2, 3, 5: after the 1st, 2nd and 4th failure, not the 3rd.
    await supervisor.waitForStderr(/record failed [^\n]*; attempt 5 in/);
    const attempts = [...supervisor.stderr.matchAll(RETRY_LINE)].map((match) => Number(match[1]));
    expect(attempts).toEqual([2, 3, 5]);
    expect(supervisor.stderr.match(/the command ended/g)).toEqual(['the command ended']);
    expect(supervisor.stderr).toMatch(
      /^pn-supervise: the command ended \(exit status 3, exited\); the server does not take its records yet: retrying, then exiting with that status \(the entry is kept in \S+ meanwhile\)\n/m,
    );
    supervisor.child.kill('SIGINT');
    const result = await supervisor.exit;
    expect(result.status).toBe(130);
    expect(result.stderr).toMatch(
      /^pn-supervise: received SIGINT: the command already ended \(exit status 3\); delivering its records, waiting at most 1 s \(--shutdown-wait\) more for the server; what is not delivered by then stays in \S+ for the next run\n/m,
    );
    expect(readdirSync(dir.file('state'))).toHaveLength(1);
  }, 60_000);
});
