import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { tempDir } from '../durability/support/temp-dir.js';
import type { ServerProcess } from '../support/server-process.js';
import { TestSession } from './support/api.js';
import { byDefault, expectRun, IDS_LINE } from './support/expect-records.js';
import { SupervisorProcess } from './support/supervisor-process.js';
import { eventually, freePort, startServer } from './support/test-helpers.js';

// What section 14 gives the loop's side of the supervisor: ids it can wait for, handles that
// name one run, giving up visibly, and a state directory it can inspect and clear.

describe('pn-supervise for the loop that launches it', () => {
  const dir = tempDir();
  let server: ServerProcess;
  const running: SupervisorProcess[] = [];

  beforeAll(async () => {
    server = await startServer(dir.file('server.db'));
  });
  afterEach(() => running.splice(0).forEach((supervisor) => supervisor.dispose()));
  afterAll(async () => {
    await server?.stop('SIGKILL');
    dir.remove();
  });

  let states = 0;
  async function setUp(): Promise<{ session: TestSession; args: string[]; stateDir: string }> {
    const session = await TestSession.open(server.url);
    const stateDir = dir.file(`state-${++states}`);
    return { session, stateDir, args: [...session.supervisorArgs, '--state-dir', stateDir] };
  }

  it('--command-id: the caller’s id on the notification, the completed record and the ids line', async () => {
    const { session, args } = await setUp();
    const commandId = randomUUID();
    const result = await SupervisorProcess.run([...args, '--quiet', '--command-id', commandId, '--', 'sh', '-c', 'exit 3']);
    expect(result.status).toBe(3);
    expect(IDS_LINE.exec(result.stderr)?.[1]).toBe(commandId);
    const records = await expectRun(session, { handle: byDefault('sh'), state: 'exited', reason: 'exited', exitCode: 3 });
    expect(records.at(-1)!.idempotency_id).toBe(commandId);
    expect(records.find((r) => r.kind === 'completed')!.payload.command_id).toBe(commandId);
  });

  it('--no-ids: no ids line; two runs of one command get different handles', async () => {
    const { session, args } = await setUp();
    const first = await SupervisorProcess.run([...args, '--no-ids', '--', 'true']);
    const second = await SupervisorProcess.run([...args, '--no-ids', '--', 'true']);
    expect([first, second].map((r) => [r.status, r.stderr])).toEqual([
      [0, ''],
      [0, ''],
    ]);
    const handles = (await session.processRecords()).filter((r) => r.kind === 'process_notification').map((r) => r.payload.process_handle);
    expect(handles).toEqual([expect.stringMatching(byDefault('true')), expect.stringMatching(byDefault('true'))]);
    expect(handles[0]).not.toBe(handles[1]);
  });

  it('usage errors (a malformed --command-id, an unknown option) exit 2 before anything runs or is sent', async () => {
    const { session, args, stateDir } = await setUp();
    const marker = dir.file(`ran-${randomUUID()}`);
    for (const bad of [['--command-id', 'not-a-uuid'], ['--bogus'], ['--deadline', 'soon']]) {
      const result = await SupervisorProcess.run([...args, ...bad, '--', 'touch', marker]);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/^pn-supervise: /);
      expect(result.stderr).not.toMatch(/command_id=/);
    }
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(stateDir)).toBe(false);
    expect(await session.processRecords()).toEqual([]);
  });

  it('--deadline against a closed port: exit 75, entry kept; status lists it, forget removes it', async () => {
    const { session, stateDir } = await setUp();
    const closed = `http://127.0.0.1:${await freePort()}`;
    const args = session.supervisorArgs.map((arg) => (arg === server.url ? closed : arg));
    const commandId = randomUUID();
    const startedAt = Date.now();
    const result = await SupervisorProcess.run([
      ...args,
      '--no-check',
      '--state-dir',
      stateDir,
      '--deadline',
      '1',
      '--command-id',
      commandId,
      '--',
      'true',
    ]);
    expect(result.status).toBe(75);
    // Without --deadline it would retry for ever; the margin covers the CLI's own start-up on a loaded machine.
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    expect(result.stderr).toMatch(
      new RegExp(`no answer from the server 1 s after the command ended \\(--deadline\\): command ${commandId} is kept in `),
    );
    expect(readdirSync(stateDir)).toHaveLength(1);

    const status = await SupervisorProcess.run(['status', '--state-dir', stateDir]);
    expect(status.status).toBe(0);
    // What to do about it: the next run delivers it, forget drops it.
    expect(status.stderr).toBe(
      `pn-supervise: 1 entry waits for the next run of its session with this state directory, which delivers it; pn-supervise forget COMMAND_ID --state-dir ${stateDir} drops one undelivered\n`,
    );
    expect(status.stdout).toBe(
      `${commandId} session=${session.sessionId} loop=${session.loopId} handle=${IDS_LINE.exec(result.stderr)![2]} ` +
        'left=started,completed,notification supervisor=gone refused=no\n',
    );
    const forget = await SupervisorProcess.run(['forget', commandId, '--state-dir', stateDir]);
    expect(forget).toMatchObject({ status: 0 });
    expect(readdirSync(stateDir)).toEqual([]);
    const again = await SupervisorProcess.run(['forget', commandId, '--state-dir', stateDir]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/no entry for command/);
    expect((await SupervisorProcess.run(['status', '--state-dir', stateDir])).stdout).toBe('');
  });

  it('forget refuses an entry whose supervisor still runs', async () => {
    const { session, args, stateDir } = await setUp();
    const commandId = randomUUID();
    const supervisor = SupervisorProcess.start([...args, '--command-id', commandId, '--', 'sleep', '30']);
    running.push(supervisor);
    await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
    const status = await SupervisorProcess.run(['status', '--state-dir', stateDir]);
    expect(status.stdout).toMatch(new RegExp(`^${commandId} .* left=completed,notification supervisor=running refused=no\\n$`));
    const forget = await SupervisorProcess.run(['forget', commandId, '--state-dir', stateDir]);
    expect(forget.status).toBe(1);
    expect(forget.stderr).toMatch(/still runs/);
    supervisor.child.kill('SIGTERM');
    expect((await supervisor.exit).status).toBe(143);
  });

  it('an entry the server refused (final 4xx) is not retried by later runs, announced by the first: it stays for status and forget', async () => {
    const { session, stateDir } = await setUp();
    // --no-check: the wrong token is found only once the records are sent (the check would refuse it up front).
    const refused = await SupervisorProcess.run(
      [...session.supervisorArgsWithoutToken, '--no-check', '--state-dir', stateDir, '--', 'true'],
      {
        env: { PN_TOKEN: 'not-the-token' },
      },
    );
    expect(refused.status).toBe(2);
    const refusedId = IDS_LINE.exec(refused.stderr)![1]!;
    const next = await SupervisorProcess.run([...session.supervisorArgs, '--state-dir', stateDir, '--', 'true']);
    expect(next.status).toBe(0);
    expect(next.stderr).toMatch(
      /1 entry in .* the server refused earlier; kept, not retried: .* pn-supervise forget COMMAND_ID --state-dir .* removes one\n/,
    );
    // Said once: the run after that is silent about it.
    const later = await SupervisorProcess.run([...session.supervisorArgs, '--state-dir', stateDir, '--', 'true']);
    expect(later.status).toBe(0);
    expect(later.stderr).not.toMatch(/refused/);
    // Only the later runs' records reached the server.
    expect((await session.processRecords()).map((r) => r.idempotency_id)).not.toContain(refusedId);
    const status = await SupervisorProcess.run(['status', '--state-dir', stateDir]);
    expect(status.stdout).toMatch(new RegExp(`^${refusedId} .* supervisor=gone refused=401/unauthorized\\n$`));
    expect(status.stderr).toMatch(
      /^pn-supervise: 1 entry was refused by the server \(refused=\.\.\.\) and never retried: pn-supervise forget COMMAND_ID --state-dir \S+ removes one\n$/,
    );
    expect((await SupervisorProcess.run(['forget', refusedId, '--state-dir', stateDir])).status).toBe(0);
    expect(readdirSync(stateDir)).toEqual([]);
  });
});
