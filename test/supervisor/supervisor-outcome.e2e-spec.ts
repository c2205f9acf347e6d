import { randomUUID } from 'node:crypto';
import { tempDir } from '../durability/support/temp-dir.js';
import type { ServerProcess } from '../support/server-process.js';
import { TestSession } from './support/api.js';
import { SupervisorProcess } from './support/supervisor-process.js';
import { startServer } from './support/test-helpers.js';

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
