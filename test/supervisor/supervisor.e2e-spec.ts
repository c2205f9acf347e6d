import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tempDir } from '../durability/support/temp-dir.js';
import { TestSession } from './support/api.js';
import { byDefault, expectRun, IDS_LINE } from './support/expect-records.js';
import type { ServerProcess } from '../support/server-process.js';
import { eventually, startServer } from './support/test-helpers.js';
import { SupervisorProcess } from './support/supervisor-process.js';

// The supervisor CLI, built, against the real server process (spec section 10). Each test
// owns a session and a state directory.

describe('pn-supervise against the real server', () => {
  const dir = tempDir();
  let server: ServerProcess;
  const running: SupervisorProcess[] = [];

  beforeAll(async () => {
    server = await startServer(dir.file('server.db'));
  });
  afterEach(() => running.splice(0).forEach((supervisor) => supervisor.dispose()));
  afterAll(async () => {
    await server?.stop();
    dir.remove();
  });

  let states = 0;
  async function setUp(): Promise<{ session: TestSession; args: string[]; stateDir: string }> {
    const session = await TestSession.open(server.url);
    const stateDir = dir.file(`state-${++states}`);
    return { session, stateDir, args: [...session.supervisorArgs, '--state-dir', stateDir] };
  }
  const start = (args: string[], options: Parameters<typeof SupervisorProcess.start>[1] = {}): SupervisorProcess => {
    const supervisor = SupervisorProcess.start(args, options);
    running.push(supervisor);
    return supervisor;
  };

  it('exit status 0: passes output through, reports exited with the exit code, forgets the entry', async () => {
    const { session, args, stateDir } = await setUp();
    const result = await SupervisorProcess.run([...args, '--', 'sh', '-c', 'echo to-stdout; echo to-stderr >&2; exit 0']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('to-stdout\n');
    // The ids line first, then the command's own stderr, untouched.
    const [idsLine, commandId, handle] = IDS_LINE.exec(result.stderr)!;
    expect(result.stderr).toBe(`${idsLine}to-stderr\n`);
    const records = await expectRun(session, { handle: byDefault('sh'), state: 'exited', reason: 'exited', exitCode: 0 });
    expect(records.at(-1)!.idempotency_id).toBe(commandId);
    expect(records[0]!.payload.process_handle).toBe(handle);
    // Answered accepted: it is in the loop's pending set.
    expect((await session.pending()).map((n) => n.command_id)).toEqual([records.at(-1)!.idempotency_id]);
    expect(readdirSync(stateDir)).toEqual([]);
  });

  it('a non-zero exit status is reported and becomes the supervisor’s own', async () => {
    const { session, args } = await setUp();
    const result = await SupervisorProcess.run([...args, '--handle', 'unit_tests-1', '--', 'sh', '-c', 'exit 7']);
    expect(result.status).toBe(7);
    await expectRun(session, { handle: 'unit_tests-1', state: 'exited', reason: 'exited', exitCode: 7 });
  });

  it('a command that is not found: failed, a diagnostic without the path, exit status 127', async () => {
    const { session, args } = await setUp();
    const missing = dir.file(`no-such-command-${randomUUID()}`);
    const result = await SupervisorProcess.run([...args, '--', missing]);
    expect(result.status).toBe(127);
    expect(result.stderr).toMatch(/not found/);
    const records = await expectRun(session, {
      handle: byDefault(missing.split('/').pop()!),
      state: 'failed',
      reason: 'failed',
      started: false,
    });
    expect(records[0]!.payload.diagnostic).toMatch(/not found/);
    expect(await session.journalText()).not.toContain(dir.path);
  });

  it('a command that is not executable: failed, exit status 126', async () => {
    const { session, args } = await setUp();
    const file = dir.file('not-executable.sh');
    writeFileSync(file, 'echo never\n');
    chmodSync(file, 0o644);
    const result = await SupervisorProcess.run([...args, '--', file]);
    expect(result.status).toBe(126);
    const records = await expectRun(session, { handle: byDefault('not-executable-sh'), state: 'failed', reason: 'failed', started: false });
    expect(records[0]!.payload.diagnostic).toEqual(expect.any(String));
    expect(await session.journalText()).not.toContain(dir.path);
  });

  it.each([
    ['SIGKILL', 'killed', 137],
    ['SIGTERM', 'terminated', 143],
    ['SIGINT', 'interrupted', 130],
    ['SIGUSR1', 'killed', 138],
  ])('a command ended by %s: %s, exit status %i', async (signal, state, status) => {
    const { session, args } = await setUp();
    const result = await SupervisorProcess.run([...args, '--', 'sh', '-c', `kill -${signal.slice(3)} $$`]);
    expect(result.status).toBe(status);
    await expectRun(session, { handle: byDefault('sh'), state, reason: state });
  });

  it('--timeout: SIGTERM after the time, reported timed_out', async () => {
    const { session, args } = await setUp();
    const result = await SupervisorProcess.run([...args, '--timeout', '0.5', '--', 'sleep', '30']);
    expect(result.status).toBe(143);
    await expectRun(session, { handle: byDefault('sleep'), state: 'timed_out', reason: 'timed_out' });
  });

  it('--output-limit: stops the command once stdout plus stderr exceed it, output passed through unchanged', async () => {
    const { session, args } = await setUp();
    const result = await SupervisorProcess.run([
      ...args,
      '--output-limit',
      '1000',
      '--',
      'sh',
      '-c',
      'i=0; while :; do i=$((i+1)); echo "line $i"; echo "err $i" >&2; done',
    ]);
    expect(result.status).toBe(143);
    expect(result.stdout.length + result.stderr.length).toBeGreaterThan(1000);
    const lines = result.stdout.split('\n').slice(0, -1);
    expect(lines).toEqual(lines.map((_line, i) => `line ${i + 1}`));
    await expectRun(session, { handle: byDefault('sh'), state: 'terminated', reason: 'output_limit' });
  });

  it('the supervisor sent SIGTERM: stop_requested, the signal passed on, terminated/runner_shutdown, exit 143', async () => {
    const { session, args } = await setUp();
    const supervisor = start([...args, '--', 'sleep', '30']);
    await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
    supervisor.child.kill('SIGTERM');
    const result = await supervisor.exit;
    expect(result.status).toBe(143);
    await expectRun(session, { handle: byDefault('sleep'), state: 'terminated', reason: 'runner_shutdown', stopRequested: 'terminated' });
  });

  it('the supervisor sent SIGINT, its command ignoring SIGINT: killed/runner_shutdown after the grace period, exit 130', async () => {
    const { session, args } = await setUp();
    const supervisor = start([...args, '--', 'sh', '-c', 'trap "" INT; echo ready; while :; do sleep 0.1; done']);
    await eventually(
      async () => (await session.processRecords()).some((r) => r.kind === 'started') && supervisor.stdout.includes('ready'),
      'the command to run',
    );
    supervisor.child.kill('SIGINT');
    const result = await supervisor.exit;
    expect(result.status).toBe(130);
    await expectRun(session, { handle: byDefault('sh'), state: 'killed', reason: 'runner_shutdown', stopRequested: 'interrupted' });
  });

  it('never sends the command line, the environment or paths: secrets stay out of the journal', async () => {
    const { session, args, stateDir } = await setUp();
    const argSecret = `argv-secret-${randomUUID()}`;
    const envSecret = `env-secret-${randomUUID()}`;
    // Not a PN_* name: those are the supervisor's own, kept from the command.
    const result = await SupervisorProcess.run([...args, '--', 'sh', '-c', 'echo "$TEST_SECRET"', argSecret], {
      env: { TEST_SECRET: envSecret },
    });
    expect(result.status).toBe(0);
    // The command saw its environment (passed through), and its output stayed local.
    expect(result.stdout).toBe(`${envSecret}\n`);
    const journal = await session.journalText();
    const pending = JSON.stringify(await session.pending());
    for (const secret of [argSecret, envSecret, 'TEST_SECRET', 'echo', stateDir]) expect(journal + pending).not.toContain(secret);
    await expectRun(session, { handle: byDefault('sh'), state: 'exited', reason: 'exited', exitCode: 0 });
  });

  it('a stopped loop: the notification is journaled, the supervisor says so and exits with the command’s status', async () => {
    const { session, args, stateDir } = await setUp();
    await session.stopLoop();
    // --no-check: stopped before the records are sent (the check would refuse a stopped loop up front).
    const result = await SupervisorProcess.run([...args, '--no-check', '--', 'sh', '-c', 'exit 3']);
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/loop is stopped/);
    await expectRun(session, { handle: byDefault('sh'), state: 'exited', reason: 'exited', exitCode: 3 });
    expect(readdirSync(stateDir)).toEqual([]);
  });

  it('a final 4xx (a wrong token): stops the command, prints the detail, keeps the record, exits 2', async () => {
    const { session, stateDir } = await setUp();
    const supervisor = start([...session.supervisorArgsWithoutToken, '--no-check', '--state-dir', stateDir, '--', 'sleep', '30'], {
      env: { PN_TOKEN: 'not-the-token' },
    });
    const result = await supervisor.exit;
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/401 unauthorized/);
    expect(readdirSync(stateDir)).toHaveLength(1);
    expect(await session.processRecords()).toEqual([]);
  });

  it('a missing or invalid option: one clear line, no stack trace, exit status 2', async () => {
    const { args } = await setUp();
    const missing = await SupervisorProcess.run(['--', 'true'], { env: { PN_SERVER_URL: '', PN_TOKEN: '' } });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^pn-supervise: missing --server \(or PN_SERVER_URL\)\n/);
    const invalid = await SupervisorProcess.run([...args, '--session', 'not-a-uuid', '--', 'true']);
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toMatch(/^pn-supervise: --session must be a UUID/);
    const noCommand = await SupervisorProcess.run(args);
    expect(noCommand.status).toBe(2);
    for (const result of [missing, invalid, noCommand]) expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
