import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProcessIdentity } from '../../libs/pn-supervise/src/process-identity.js';
import { tempDir } from '../durability/support/temp-dir.js';
import type { ServerProcess } from '../support/server-process.js';
import { TestSession } from './support/api.js';
import { byDefault, expectRun } from './support/expect-records.js';
import { SUPERVISOR_MAIN, SupervisorProcess } from './support/supervisor-process.js';
import { eventually, startServer } from './support/test-helpers.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** The state entries of a directory, parsed. */
function entries(stateDir: string): Array<{ command_id: string; completion?: unknown; command_process?: { pid: number; token: string } }> {
  if (!existsSync(stateDir)) return [];
  return readdirSync(stateDir)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      try {
        return [JSON.parse(readFileSync(join(stateDir, name), 'utf8'))];
      } catch {
        return [];
      }
    });
}

const exited = (child: ChildProcess): Promise<{ status: number | null; signal: NodeJS.Signals | null }> =>
  new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done({ status: child.exitCode, signal: child.signalCode });
    else child.once('exit', (status, signal) => done({ status, signal }));
  });

/** The state of a process as /proc says (Z: a zombie), or undefined once it is gone. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

// The edges of a supervisor's life with real processes and real signals (issue 22, spec
// section 10): a terminal's or systemd's stop sent to the whole process group, a SIGKILLed
// supervisor, with or without a parent that reaps it.

describe('pn-supervise under real signals', () => {
  const dir = tempDir();
  let server: ServerProcess;
  const cleanups: Array<() => void> = [];

  beforeAll(async () => {
    server = await startServer(dir.file('server.db'));
  });
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));
  afterAll(async () => {
    await server?.stop('SIGKILL');
    dir.remove();
  });
  const killGroupLater = (pid: number): void => {
    cleanups.push(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    });
  };

  let states = 0;
  const stateDir = (): string => dir.file(`state-${++states}`);

  it.each([
    ['SIGINT', 'interrupted', 130],
    ['SIGTERM', 'terminated', 143],
  ] as const)(
    'group %s to `npm run supervise -- -- sleep 30`, ten times: each time stop_requested (%s), runner_shutdown delivered, exit %i',
    async (signal, reason, status) => {
      for (let run = 0; run < 10; run++) {
        const session = await TestSession.open(server.url);
        const state = stateDir();
        // Its own process group, as a terminal's foreground job or a systemd unit: npm, the
        // supervisor and the command all get the signal, and npm forwards it once more.
        const npm = spawn(
          'npm',
          ['run', '--silent', 'supervise', '--', ...session.supervisorArgs, '--state-dir', state, '--', 'sleep', '30'],
          {
            cwd: repo,
            detached: true,
            stdio: ['ignore', 'ignore', 'pipe'],
          },
        );
        killGroupLater(npm.pid!);
        let stderr = '';
        npm.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
        process.kill(-npm.pid!, signal);
        const result = await exited(npm);
        expect({ run, status: result.status, stderr }).toEqual({ run, status, stderr: expect.not.stringMatching(/stopped before/) });
        // The command ended by the group's signal (or the same one passed on): the record names it.
        await expectRun(session, {
          handle: byDefault('sleep'),
          state: 'terminated',
          reason: 'runner_shutdown',
          stopRequested: reason,
          signal,
        });
        expect(entries(state)).toEqual([]);
      }
    },
    240_000,
  );

  it('SIGTERM, then SIGINT while the server does not answer: the wait is cut short, said so, the entry kept', async () => {
    const session = await TestSession.open(server.url);
    const state = stateDir();
    // A server that is not there: the records are retried until the second signal.
    const args = [...session.supervisorArgs.map((arg) => (arg === server.url ? 'http://127.0.0.1:9' : arg)), '--no-check'];
    const supervisor = SupervisorProcess.start([...args, '--state-dir', state, '--', 'sleep', '30']);
    cleanups.push(() => supervisor.dispose());
    await supervisor.waitForStderr(/sending the started record failed/);
    supervisor.child.kill('SIGTERM');
    await eventually(() => entries(state)[0]?.completion !== undefined, 'the completion to be recorded');
    // The same signal again within the grace period changes nothing.
    supervisor.child.kill('SIGTERM');
    await new Promise((next) => setTimeout(next, 300));
    expect(supervisor.child.exitCode).toBeNull();
    supervisor.child.kill('SIGINT');
    const result = await supervisor.exit;
    expect(result.status).toBe(143);
    expect(result.stderr).toMatch(/received SIGINT after SIGTERM: not waiting any longer/);
    expect(result.stderr).toMatch(/stopped before the server answered: command [0-9a-f-]{36} is kept in /);
    expect(entries(state)).toHaveLength(1);
  });

  it('a completion kept in the state directory is delivered by a later run with the signal that ended the command (issue 47)', async () => {
    const session = await TestSession.open(server.url);
    const state = stateDir();
    // The server is not there: the supervisor's timeout ends the command, the delivery gives up.
    const args = [...session.supervisorArgs.map((arg) => (arg === server.url ? 'http://127.0.0.1:9' : arg)), '--no-check'];
    const gaveUp = await SupervisorProcess.run([...args, '--state-dir', state, '--timeout', '1', '--deadline', '1', '--', 'sleep', '30']);
    expect(gaveUp.status).toBe(75);
    const [kept] = entries(state);
    expect(kept!.completion).toMatchObject({ state: 'timed_out', reason: 'timed_out', signal: 'SIGTERM' });

    const next = await SupervisorProcess.run([...session.supervisorArgs, '--state-dir', state, '--', 'true']);
    expect(next.status).toBe(0);
    expect(next.stderr).toContain(`finishing an earlier run: command ${kept!.command_id} (timed_out)`);
    const completed = (await session.processRecords()).filter((r) => r.kind === 'completed' && r.payload.command_id === kept!.command_id);
    expect(completed.map((r) => r.payload.signal)).toEqual(['SIGTERM']);
    const pending = (await session.pending()).find((n) => n.command_id === kept!.command_id);
    expect(pending).toMatchObject({ state: 'timed_out', outcome: { signal: 'SIGTERM', exit_code: null } });
    expect(entries(state)).toEqual([]);
  });

  it('the wait for the server at shutdown is bounded (--shutdown-wait): then it says so and keeps the entry', async () => {
    const session = await TestSession.open(server.url);
    const state = stateDir();
    const args = [...session.supervisorArgs.map((arg) => (arg === server.url ? 'http://127.0.0.1:9' : arg)), '--no-check'];
    const supervisor = SupervisorProcess.start([...args, '--state-dir', state, '--shutdown-wait', '1', '--', 'sleep', '30']);
    cleanups.push(() => supervisor.dispose());
    await supervisor.waitForStderr(/sending the started record failed/);
    const stoppedAt = Date.now();
    supervisor.child.kill('SIGINT');
    const result = await supervisor.exit;
    expect(Date.now() - stoppedAt).toBeLessThan(8_000);
    expect(result.status).toBe(130);
    expect(result.stderr).toMatch(/the server did not answer within 1 s: command [0-9a-f-]{36} is kept in /);
    expect(entries(state)).toHaveLength(1);
  });

  it.each([
    ['a parent that reaps it', false],
    ['a parent that never reaps it (a zombie)', true],
  ])('SIGKILL of a supervisor’s group under %s, a second run at once: the lost run is reported under its ids', async (_what, zombie) => {
    const session = await TestSession.open(server.url);
    const state = stateDir();
    const args = [...session.supervisorArgs, '--state-dir', state];
    let supervisorPid: number;
    if (zombie) {
      // setsid: the supervisor leads a group of its own; its parent becomes a `sleep`, which never reaps.
      const quoted = [process.execPath, SUPERVISOR_MAIN, ...args, '--handle', 'crashed', '--', 'sleep', '30']
        .map((arg) => `'${arg}'`)
        .join(' ');
      const parent = spawn('sh', ['-c', `setsid ${quoted} >/dev/null 2>&1 & echo $!; exec sleep 60`], {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      killGroupLater(parent.pid!);
      supervisorPid = Number(await new Promise<string>((done) => parent.stdout!.once('data', (chunk: Buffer) => done(chunk.toString()))));
      killGroupLater(supervisorPid);
    } else {
      const crashed = SupervisorProcess.start([...args, '--handle', 'crashed', '--', 'sleep', '30'], { group: true });
      cleanups.push(() => crashed.dispose());
      supervisorPid = crashed.child.pid!;
    }
    await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
    const [crashedEntry] = entries(state);
    process.kill(-supervisorPid, 'SIGKILL');
    const next = await SupervisorProcess.run([...args, '--handle', 'next', '--', 'true']);
    if (zombie) expect(procState(supervisorPid)).toBe('Z');
    expect(next.status).toBe(0);
    expect(next.stderr).toContain(`finishing an earlier run: command ${crashedEntry!.command_id} (lost_on_restore)`);
    const crashedRecords = (await session.processRecords()).filter((r) => r.payload.process_handle === 'crashed');
    expect(crashedRecords.map((r) => r.kind)).toEqual(['started', 'lost', 'process_notification']);
    expect(crashedRecords[1]!.payload).toMatchObject({ state: 'lost_on_restore', command_id: crashedEntry!.command_id });
    expect(crashedRecords[2]!.idempotency_id).toBe(crashedEntry!.command_id);
    expect(entries(state)).toEqual([]);
  });

  it('SIGKILL of the supervisor alone: its command is gone soon after, long before it would have ended', async () => {
    const session = await TestSession.open(server.url);
    const state = stateDir();
    const supervisor = SupervisorProcess.start([...session.supervisorArgs, '--state-dir', state, '--', 'sleep', '30']);
    cleanups.push(() => supervisor.dispose());
    const command = await eventually(() => entries(state)[0]?.command_process, 'the command to run');
    expect(ProcessIdentity.isRunning(command)).toBe(true);
    supervisor.child.kill('SIGKILL');
    await supervisor.exit;
    // Gone, or a zombie waiting for a PID 1 that reaps slowly: either way it no longer runs. The
    // watchdog is a node process of its own, slow to start on a loaded machine; `sleep 30` left
    // to itself would still run well after this wait.
    await eventually(() => !ProcessIdentity.isRunning(command), 'the command to be gone', 15_000);
  });

  it('the server down, the command ended, a retry seen, then SIGKILL: the entry stays; the next run delivers it under the original command_id', async () => {
    const own = await startServer(dir.file('own-server.db'));
    const port = Number(new URL(own.url).port);
    const session = await TestSession.open(own.url);
    await own.stop('SIGKILL');
    const state = stateDir();
    const args = [...session.supervisorArgs, '--state-dir', state];
    const supervisor = SupervisorProcess.start([...args, '--no-check', '--', 'sh', '-c', 'exit 5']);
    cleanups.push(() => supervisor.dispose());
    await eventually(() => entries(state)[0]?.completion !== undefined, 'the completion to be recorded');
    // Said once, at the first retry after the completion was recorded, which may come before this
    // test sees the entry (a loaded machine): looked for in everything the supervisor said.
    await eventually(() => /the command ended \(exit status 5, exited\)/.test(supervisor.stderr), 'a retry after the end');
    supervisor.child.kill('SIGKILL');
    await supervisor.exit;
    const [kept] = entries(state);
    expect(kept).toMatchObject({ command_id: expect.any(String), completion: { state: 'exited', exit_code: 5 } });

    const back = await startServer(dir.file('own-server.db'), { port });
    cleanups.push(() => void back.stop('SIGKILL'));
    const next = await SupervisorProcess.run([...args, '--handle', 'next', '--', 'true']);
    expect(next.status).toBe(0);
    const notifications = (await session.processRecords()).filter((r) => r.kind === 'process_notification');
    expect(notifications.map((r) => r.idempotency_id)).toContain(kept!.command_id);
    const first = notifications.find((r) => r.idempotency_id === kept!.command_id)!;
    expect(first.payload).toMatchObject({ state: 'exited', reason: 'exited' });
    expect(entries(state)).toEqual([]);
  });

  it('PN_TOKEN keeps the token out of the process list; --token warns that it is there', async () => {
    const session = await TestSession.open(server.url);
    const supervisor = SupervisorProcess.start([...session.supervisorArgsWithoutToken, '--state-dir', stateDir(), '--', 'sleep', '30'], {
      env: { PN_TOKEN: session.token },
    });
    cleanups.push(() => supervisor.dispose());
    await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
    const ps = await new Promise<string>((done) => {
      const child = spawn('ps', ['-eo', 'pid,args', '--no-headers'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('close', () => done(out));
    });
    expect(ps).toContain(SUPERVISOR_MAIN);
    expect(ps).not.toContain(session.token);
    supervisor.child.kill('SIGTERM');
    expect((await supervisor.exit).status).toBe(143);

    const warned = await SupervisorProcess.run([
      ...session.supervisorArgsWithoutToken,
      '--token',
      session.token,
      '--state-dir',
      stateDir(),
      '--',
      'true',
    ]);
    expect(warned.status).toBe(0);
    expect(warned.stderr).toMatch(/^pn-supervise: warning: --token is visible to other local users/m);
  });
});
