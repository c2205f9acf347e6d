import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../durability/support/temp-dir.js';
import { TestSession } from './support/api.js';
import { byDefault, expectRun, IDS_LINE } from './support/expect-records.js';
import type { ServerProcess } from '../support/server-process.js';
import { eventually, startServer } from './support/test-helpers.js';
import { SupervisorProcess } from './support/supervisor-process.js';

/** The state directory's entries as text; whatever is renamed away while reading is skipped. */
function stateFiles(stateDir: string): string[] {
  if (!existsSync(stateDir)) return [];
  return readdirSync(stateDir).flatMap((name) => {
    try {
      return [readFileSync(join(stateDir, name), 'utf8')];
    } catch {
      return [];
    }
  });
}

// What the supervisor keeps in its state directory and delivers later, against real server
// processes it outlives (spec section 10).

describe('pn-supervise durability', () => {
  let dir: ReturnType<typeof tempDir>;
  const servers: ServerProcess[] = [];
  const supervisors: SupervisorProcess[] = [];
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    supervisors.splice(0).forEach((supervisor) => supervisor.dispose());
    // Killed: the database is a temporary file, and a graceful drain waits for idle connections.
    await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
    dir.remove();
  });
  const serverOnDisk = async (options: Parameters<typeof startServer>[1] = {}): Promise<ServerProcess> => {
    const server = await startServer(dir.file('server.db'), options);
    servers.push(server);
    return server;
  };
  const startSupervisor = (...args: Parameters<typeof SupervisorProcess.start>): SupervisorProcess => {
    const supervisor = SupervisorProcess.start(...args);
    supervisors.push(supervisor);
    return supervisor;
  };

  it('the server is down when the command ends: the command runs, its records are delivered once the server is back', async () => {
    const first = await serverOnDisk();
    const port = Number(new URL(first.url).port);
    const session = await TestSession.open(first.url);
    await first.stop('SIGKILL');

    // --no-check: run without asking the server first (it is down).
    const supervisor = startSupervisor([
      ...session.supervisorArgs,
      '--no-check',
      '--state-dir',
      dir.file('state'),
      '--',
      'sh',
      '-c',
      'echo ran; exit 5',
    ]);
    // A line after the 1st, 2nd, 4th... failed attempt, saying why and when the next one comes.
    await supervisor.waitForStderr(
      /sending the started record failed \(cannot reach [^)]*ECONNREFUSED\)\); attempt 2 in \d+\.\d s; retrying with backoff, said again after 2, 4, 8, \.\.\. failed attempts\n/,
    );
    await eventually(() => supervisor.stdout === 'ran\n', 'the command to have run');
    await supervisor.waitForStderr(/attempt 3 in/);

    await serverOnDisk({ port });
    const result = await supervisor.exit;
    expect(result.status).toBe(5);
    await expectRun(session, { handle: byDefault('sh'), state: 'exited', reason: 'exited', exitCode: 5 });
    expect(readdirSync(dir.file('state'))).toEqual([]);
    // Two server starts, and the supervisor's backoff (up to 15 s) while the second one comes up.
  }, 120_000);

  it('--quiet silences the retry lines', async () => {
    const first = await serverOnDisk();
    const port = Number(new URL(first.url).port);
    const session = await TestSession.open(first.url);
    await first.stop('SIGKILL');
    const supervisor = startSupervisor([
      ...session.supervisorArgs,
      '--quiet',
      '--no-check',
      '--state-dir',
      dir.file('state'),
      '--',
      'true',
    ]);
    // The entry records the end of the command before the first retry is over.
    await eventually(() => stateFiles(dir.file('state')).some((text) => text.includes('"completion"')), 'the completion to be recorded');
    await serverOnDisk({ port });
    const result = await supervisor.exit;
    // Nothing but the ids line, which --quiet keeps.
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^${IDS_LINE.source}$`));
    await expectRun(session, { handle: byDefault('true'), state: 'exited', reason: 'exited', exitCode: 0 });
    // Two server starts, and the supervisor's backoff (up to 15 s) while the second one comes up.
  }, 120_000);

  it('a full loop: retried with the identical notification until a consume makes room, one journal record per id', async () => {
    const server = await serverOnDisk({ env: { PN_LOOP_CAPACITY: '1' } });
    const session = await TestSession.open(server.url);
    const args = [...session.supervisorArgs, '--state-dir', dir.file('state')];
    expect((await SupervisorProcess.run([...args, '--', 'true'])).status).toBe(0);
    const [first] = await session.pending();

    const second = startSupervisor([...args, '--', 'sh', '-c', 'exit 4']);
    await second.waitForStderr(/completion notification failed \(503 delivery_stopped \(inbox_full\)[^\n]*attempt 2 in/);
    await session.consume(first!.command_id as string);
    expect((await second.exit).status).toBe(4);

    const notifications = (await session.processRecords()).filter((r) => r.kind === 'process_notification');
    expect(notifications).toHaveLength(2);
    expect((await session.pending()).map((n) => n.command_id)).toEqual([notifications[1]!.idempotency_id]);
  });

  it('a supervisor SIGKILLed while it retries its notification (loop full): the entry stays until the notification is answered; the next run delivers it', async () => {
    const server = await serverOnDisk({ env: { PN_LOOP_CAPACITY: '1' } });
    const session = await TestSession.open(server.url);
    const stateDir = dir.file('state');
    const args = [...session.supervisorArgs, '--state-dir', stateDir];
    expect((await SupervisorProcess.run([...args, '--', 'true'])).status).toBe(0);
    const [first] = await session.pending();

    const crashed = startSupervisor([...args, '--handle', 'crashed', '--', 'sh', '-c', 'exit 4'], { group: true });
    await crashed.waitForStderr(/completion notification failed \(503 delivery_stopped \(inbox_full\)[^\n]*attempt 2 in/);
    crashed.killGroup();
    await crashed.exit;
    const crashedId = IDS_LINE.exec(crashed.stderr)![1]!;
    // Everything but the notification answered, and the entry still there.
    const kept = stateFiles(stateDir).map((text) => JSON.parse(text) as { command_id: string; published: string[] });
    expect(kept).toEqual([expect.objectContaining({ command_id: crashedId, published: ['started', 'completed'] })]);

    // The loop takes the first one; the next run delivers the kept notification, then its own
    // (which the loop makes room for as well).
    await session.consume(first!.command_id as string);
    const next = startSupervisor([...args, '--handle', 'next', '--', 'true']);
    await next.waitForStderr(new RegExp(`finishing an earlier run: command ${crashedId} \\(exited\\)`));
    await eventually(async () => (await session.pending()).some((n) => n.command_id === crashedId), 'the kept notification');
    await session.consume(crashedId);
    expect((await next.exit).status).toBe(0);
    const notifications = (await session.processRecords()).filter((r) => r.kind === 'process_notification');
    expect(notifications.map((r) => [r.payload.process_handle, r.payload.state])).toEqual([
      [expect.stringMatching(byDefault('true')), 'exited'],
      ['crashed', 'exited'],
      ['next', 'exited'],
    ]);
    expect(notifications[1]!.idempotency_id).toBe(crashedId);
    expect(readdirSync(stateDir)).toEqual([]);
  });

  it('a supervisor SIGKILLed with its command: the next runs report it lost under the first ids, exactly one of them', async () => {
    const server = await serverOnDisk();
    const session = await TestSession.open(server.url);
    const stateDir = dir.file('state');
    const args = [...session.supervisorArgs, '--state-dir', stateDir];

    const crashed = startSupervisor([...args, '--handle', 'crashed', '--', 'sleep', '30'], { group: true });
    await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
    crashed.killGroup();
    await crashed.exit;
    const [entryFile] = readdirSync(stateDir);
    const firstCommandId = (JSON.parse(readFileSync(join(stateDir, entryFile!), 'utf8')) as { command_id: string }).command_id;

    // Two supervisors on the one state directory: only one takes the abandoned entry over.
    const [a, b] = await Promise.all([
      SupervisorProcess.run([...args, '--handle', 'next-a', '--', 'true']),
      SupervisorProcess.run([...args, '--handle', 'next-b', '--', 'true']),
    ]);
    expect([a.status, b.status]).toEqual([0, 0]);
    expect([a.stderr, b.stderr].filter((stderr) => stderr.includes('finishing an earlier run'))).toHaveLength(1);

    const journal = await session.processRecords();
    const crashedRecords = journal.filter((r) => r.payload.process_handle === 'crashed');
    expect(crashedRecords.map((r) => r.kind)).toEqual(['started', 'lost', 'process_notification']);
    const [started, lost, notification] = crashedRecords;
    expect(lost!.payload).toMatchObject({
      origin_execution_id: started!.payload.origin_execution_id,
      state: 'lost_on_restore',
      reason: 'lost_on_restore',
      process_started_at: started!.payload.process_started_at,
      process_finished_at: expect.any(String),
    });
    expect(notification!.payload).toMatchObject({ command_id: firstCommandId, state: 'lost_on_restore', reason: 'lost_on_restore' });
    // Both new runs reported their own command too, each id once.
    expect(journal.filter((r) => r.kind === 'process_notification')).toHaveLength(3);
    expect(new Set(journal.map((r) => r.idempotency_id)).size).toBe(journal.length);
    expect(readdirSync(stateDir)).toEqual([]);
  });
});
