import { randomUUID } from 'node:crypto';
import { ProcessNotificationsClient } from 'process-notifications-client';
import { tempDir } from '../durability/support/temp-dir.js';
import type { ServerProcess } from '../support/server-process.js';
import { TestSession } from './support/api.js';
import { SupervisorProcess } from './support/supervisor-process.js';
import { eventually, startServer } from './support/test-helpers.js';

// The loop's side of a supervised run (spec section 14): the pending notification carries the
// outcome of the completed record that names its command_id, so a loop tells pass from fail.

describe('pn-supervise: the outcome on the pending notification', () => {
  const dir = tempDir();
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer(dir.file('server.db'));
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    dir.remove();
  });

  it.each([
    ['exit 3', ['sh', '-c', 'exit 3'], 3, { kind: 'completed', has_exit_code: true, exit_code: 3, diagnostic: null, signal: null }],
    ['exit 0', ['sh', '-c', 'exit 0'], 0, { kind: 'completed', has_exit_code: true, exit_code: 0, diagnostic: null, signal: null }],
    [
      'a command that cannot start',
      [`/nonexistent/no-such-command-${randomUUID()}`],
      127,
      { kind: 'completed', has_exit_code: false, exit_code: null, diagnostic: expect.stringMatching(/not found/) },
    ],
  ])('%s: the notification’s outcome is its completed record, linked by command_id', async (_what, command, status, outcome) => {
    const session = await TestSession.open(server.url);
    const commandId = randomUUID();
    const result = await SupervisorProcess.run([
      ...session.supervisorArgs,
      '--state-dir',
      dir.file(`state-${commandId}`),
      '--command-id',
      commandId,
      '--',
      ...command,
    ]);
    expect(result.status).toBe(status);
    const completed = (await session.processRecords()).find((r) => r.kind === 'completed')!;
    expect(completed.payload.command_id).toBe(commandId);
    const [pending] = await session.pending();
    expect(pending).toMatchObject({
      command_id: commandId,
      outcome: { event_id: completed.idempotency_id, ...outcome, process_finished_at: completed.payload.process_finished_at },
    });
  });
});

// Exit status is exact (issue 47; spec sections 6 and 14): a command a signal ended reaches the loop with
// its state and the very signal, whoever sent it (the command itself, the supervisor's timeout,
// the supervisor's own shutdown), so a segfault is told from an OOM kill or a user's SIGUSR1.
describe('pn-supervise: the signal that ended the command, in the outcome', () => {
  const dir = tempDir();
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer(dir.file('server.db'));
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    dir.remove();
  });

  /** The notification as the typed client reads it from the loop's pending view. */
  async function seenByClient(session: TestSession, commandId: string) {
    const client = new ProcessNotificationsClient({ baseUrl: server.url, token: session.token });
    const { notification } = await client.waitForCompletion(session.sessionId, session.loopId, { commandId }, { timeoutMs: 10_000 });
    return notification;
  }

  async function supervise(session: TestSession, extra: readonly string[], command: readonly string[]) {
    const commandId = randomUUID();
    const args = [...session.supervisorArgs, '--state-dir', dir.file(`state-${commandId}`), '--command-id', commandId, ...extra];
    return { commandId, args: [...args, '--', ...command] };
  }

  it.each([
    ['SIGSEGV', 'killed', ['sh', '-c', 'kill -SEGV $$'], 139],
    ['SIGUSR1', 'killed', ['sh', '-c', 'kill -USR1 $$'], 138],
    ['SIGKILL', 'killed', ['sh', '-c', 'kill -KILL $$'], 137],
    ['SIGTERM', 'terminated', ['sh', '-c', 'kill -TERM $$'], 143],
  ])('a command that ends by %s: the loop sees %s with that signal', async (signal, state, command, status) => {
    const session = await TestSession.open(server.url);
    const run = await supervise(session, [], command as string[]);
    const result = await SupervisorProcess.run(run.args);
    expect(result.status).toBe(status);
    const completed = (await session.processRecords()).find((r) => r.kind === 'completed')!;
    expect(completed.payload).toMatchObject({ state, reason: state, signal });
    expect(completed.payload).not.toHaveProperty('exit_code');
    const notification = await seenByClient(session, run.commandId);
    expect(notification).toMatchObject({ state, reason: state });
    expect(notification.outcome).toMatchObject({ kind: 'completed', has_exit_code: false, exit_code: null, signal });
  });

  it('a command that exits by itself: signal null', async () => {
    const session = await TestSession.open(server.url);
    const run = await supervise(session, [], ['sh', '-c', 'exit 139']);
    expect((await SupervisorProcess.run(run.args)).status).toBe(139);
    const notification = await seenByClient(session, run.commandId);
    expect(notification.outcome).toMatchObject({ has_exit_code: true, exit_code: 139, signal: null });
  });

  it('the supervisor’s timeout: timed_out, with the SIGTERM that ended it', async () => {
    const session = await TestSession.open(server.url);
    const run = await supervise(session, ['--timeout', '1'], ['sleep', '30']);
    expect((await SupervisorProcess.run(run.args)).status).toBe(143);
    const notification = await seenByClient(session, run.commandId);
    expect(notification).toMatchObject({ state: 'timed_out', reason: 'timed_out' });
    expect(notification.outcome).toMatchObject({ signal: 'SIGTERM', exit_code: null });
  });

  it('the supervisor’s timeout on a command that ignores SIGTERM: timed_out, with the SIGKILL after the grace', async () => {
    const session = await TestSession.open(server.url);
    const run = await supervise(session, ['--timeout', '1'], ['sh', '-c', "trap '' TERM; while :; do sleep 1; done"]);
    expect((await SupervisorProcess.run(run.args)).status).toBe(137);
    const notification = await seenByClient(session, run.commandId);
    expect(notification).toMatchObject({ state: 'timed_out', reason: 'timed_out' });
    expect(notification.outcome).toMatchObject({ signal: 'SIGKILL' });
  }, 30_000);

  it('the output limit: terminated with reason output_limit, and the SIGTERM that ended it', async () => {
    const session = await TestSession.open(server.url);
    const run = await supervise(session, ['--output-limit', '1000', '--quiet'], ['sh', '-c', 'while :; do echo 0123456789; done']);
    const result = await SupervisorProcess.run(run.args);
    expect(result.status).toBe(143);
    const notification = await seenByClient(session, run.commandId);
    expect(notification).toMatchObject({ state: 'terminated', reason: 'output_limit' });
    expect(notification.outcome).toMatchObject({ signal: 'SIGTERM' });
  });

  it('the supervisor told to stop (SIGTERM): terminated with reason runner_shutdown, and the SIGTERM passed on', async () => {
    const session = await TestSession.open(server.url);
    const run = await supervise(session, [], ['sleep', '30']);
    const supervisor = SupervisorProcess.start(run.args);
    try {
      await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
      supervisor.child.kill('SIGTERM');
      expect((await supervisor.exit).status).toBe(143);
    } finally {
      supervisor.dispose();
    }
    const notification = await seenByClient(session, run.commandId);
    expect(notification).toMatchObject({ state: 'terminated', reason: 'runner_shutdown' });
    expect(notification.outcome).toMatchObject({ signal: 'SIGTERM' });
  });
});
