import { ProcessNotificationsClient } from 'process-notifications-client';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '../durability/support/temp-dir.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { NPM_ENV, markedBlock, packAsDocumented, runDocumented, shellCommands } from '../support/doc-commands.js';
import { eventually, startServer } from '../supervisor/support/test-helpers.js';
import { completion, exited } from '../client/support/loop-side.js';

const PAGE = 'docs/agent-loop.md';

// docs/agent-loop.md step by step, as a user follows it: the tarballs packed as docs/install.md
// says, a project outside this repository with the page's package.json and tsconfig.json, the
// page's install commands (from the registry: today's TypeScript), the example saved as
// src/agent.ts and the page's run command, against the real server: it launches
// `npx pn-supervise`, waits, reads the exit code.
describe("the agent loop page's example", () => {
  let scratch: string;
  let data: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'pn-agent-loop-'));
    data = tempDir();
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
    data.remove();
  });

  it('launches a command under pn-supervise, waits for it, reads exit code 3 from its outcome and consumes it', async () => {
    const packages = join(scratch, 'pn-packages');
    packAsDocumented(packages);
    const project = join(scratch, 'my-agent');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'package.json'), markedBlock(PAGE, 'agent-loop-package-json', 'json'));
    writeFileSync(join(project, 'tsconfig.json'), markedBlock(PAGE, 'agent-loop-tsconfig', 'json'));
    runDocumented(shellCommands(markedBlock(PAGE, 'agent-loop-install', 'sh')), project, packages);
    // Installed from the tarballs, not linked to this repository.
    expect(lstatSync(join(project, 'node_modules/pn-supervise')).isSymbolicLink()).toBe(false);
    expect(lstatSync(join(project, 'node_modules/process-notifications-client')).isSymbolicLink()).toBe(false);
    // docs/install.md's install of the same two, with its check that the supervisor runs there.
    expect(runDocumented(shellCommands(markedBlock('docs/install.md', 'install-supervisor', 'sh')), project, packages)).toMatch(
      /pn-supervise/,
    );
    writeFileSync(join(project, 'src/agent.ts'), markedBlock(PAGE, 'agent-loop-example', 'ts'));

    server = await startServer(data.file('db'));
    const admin = new ProcessNotificationsClient({ baseUrl: server.url, token: SERVER_ADMIN_TOKEN });
    const session = await admin.createSession();
    const client = admin.withToken(session.token);
    const loop = await client.openLoop(session.session_id);

    const output = runDocumented(shellCommands(markedBlock(PAGE, 'agent-loop-run', 'sh')), project, packages, {
      PN_SERVER_URL: server.url,
      PN_TOKEN: session.token,
      PN_SESSION_ID: session.session_id,
      PN_LOOP_ID: loop.loop_id,
      PN_SUPERVISOR_STATE_DIR: join(project, '.pn-supervisor'),
    });
    const result = JSON.parse(output.trim().split('\n').at(-1)!) as {
      commandId: string;
      exitCode: number;
      consumed: boolean;
      supervisorStatus: number;
    };
    expect(result).toMatchObject({ exitCode: 3, consumed: true, supervisorStatus: 3 });

    // What the server holds: the completed record names the command, and nothing is left pending.
    const { records } = await client.journal(session.session_id, { limit: 100 });
    expect(records.filter((r) => r.kind === 'completed').map((r) => r.payload?.command_id)).toEqual([result.commandId]);
    expect((await client.pendingNotifications(session.session_id, loop.loop_id)).notifications).toEqual([]);

    // The worker of "Following every completion of a loop", saved as src/worker.ts and run with
    // the page's command: it is given each completion with its exit code, consumes them all, and
    // stops on SIGTERM once the work in flight is done.
    writeFileSync(join(project, 'src/worker.ts'), markedBlock(PAGE, 'agent-loop-worker', 'ts'));
    const [run] = shellCommands(markedBlock(PAGE, 'agent-loop-worker-run', 'sh'));
    // Its two steps: compile, then the worker in the foreground (exec: the signal reaches node).
    const [compile, start] = run!.split(' && ');
    runDocumented([compile!], project, packages);
    const worker = spawn('sh', ['-c', `exec ${start!}`], {
      cwd: project,
      env: {
        ...process.env,
        ...NPM_ENV,
        PN_SERVER_URL: server.url,
        PN_TOKEN: session.token,
        PN_SESSION_ID: session.session_id,
        PN_LOOP_ID: loop.loop_id,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let workerOutput = '';
    worker.stdout.on('data', (chunk: Buffer) => (workerOutput += chunk.toString()));
    const runs = [completion(session.session_id, loop.loop_id), completion(session.session_id, loop.loop_id)];
    await client.publishLifecycle(exited(runs[0]!, 0));
    await client.deliverCompletion(runs[0]!);
    await client.deliverCompletion(runs[1]!); // from a supervisor that sends no lifecycle record
    await eventually(
      async () => (await client.pendingNotifications(session.session_id, loop.loop_id)).notifications.length === 0,
      'all consumed',
      120_000,
    );
    const printed = (): unknown[] =>
      workerOutput
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown);
    // Printed before its consume went out: both are there once all are consumed.
    expect(printed()).toEqual(
      expect.arrayContaining([
        { commandId: runs[0]!.command_id, exitCode: 0 },
        { commandId: runs[1]!.command_id, exitCode: null },
      ]),
    );
    process.kill(worker.pid!, 'SIGTERM');
    const [code] = (await once(worker, 'close')) as [number | null];
    expect(code).toBe(0);
    expect(printed()).toHaveLength(2);
  }, 300_000);
});
