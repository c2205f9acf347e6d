import { ProcessNotificationsClient } from 'process-notifications-client';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../durability/support/temp-dir.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { startServer } from '../supervisor/support/test-helpers.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
// The supervisor's build: `npm test` builds before it runs.
const SUPERVISOR = join(repo, 'libs/pn-supervise');

// docs/agent-loop.md's example, exactly as a user would copy it.
function agentLoopExample(): string {
  const page = readFileSync(join(repo, 'docs/agent-loop.md'), 'utf8');
  const match = /<!-- agent-loop-example -->\n```ts\n([\s\S]*?)```/.exec(page);
  if (!match) throw new Error('docs/agent-loop.md has no <!-- agent-loop-example --> block');
  return match[1]!;
}

// A project outside this repository with the supervisor and the client in its node_modules (linked
// to this repository's builds, as an install would place them), the example type-checked in strict
// mode and run against the real server: it launches `npx pn-supervise`, waits, reads the exit code.
describe("the agent loop page's example", () => {
  let project: string;
  let data: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;
  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'pn-agent-loop-'));
    data = tempDir();
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    rmSync(project, { recursive: true, force: true });
    data.remove();
  });

  it('launches a command under pn-supervise, waits for it, reads exit code 3 from its outcome and consumes it', async () => {
    server = await startServer(data.file('db'));
    const admin = new ProcessNotificationsClient({ baseUrl: server.url, token: SERVER_ADMIN_TOKEN });
    const session = await admin.createSession();
    const client = admin.withToken(session.token);
    const loop = await client.openLoop(session.session_id);

    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-agent', private: true, type: 'module' }));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          // The example is what is checked, not the declarations it imports.
          skipLibCheck: true,
          types: ['node'],
          outDir: 'dist',
        },
        include: ['src'],
      }),
    );
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src/agent-loop.ts'), agentLoopExample());
    mkdirSync(join(project, 'node_modules/@types'), { recursive: true });
    mkdirSync(join(project, 'node_modules/.bin'));
    symlinkSync(join(repo, 'libs/process-notifications-client'), join(project, 'node_modules/process-notifications-client'));
    symlinkSync(SUPERVISOR, join(project, 'node_modules/pn-supervise'));
    symlinkSync(join(repo, 'node_modules/@types/node'), join(project, 'node_modules/@types/node'));
    const bin = (JSON.parse(readFileSync(join(SUPERVISOR, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin[
      'pn-supervise'
    ]!;
    const shim = join(project, 'node_modules/.bin/pn-supervise');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${join(project, 'node_modules/pn-supervise', bin)}" "$@"\n`);
    chmodSync(shim, 0o755);

    execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, stdio: 'pipe' });
    const output = execFileSync(process.execPath, [join(project, 'dist/agent-loop.js')], {
      cwd: project,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 90_000,
      env: {
        ...process.env,
        PN_SERVER_URL: server.url,
        PN_TOKEN: session.token,
        PN_SESSION_ID: session.session_id,
        PN_LOOP_ID: loop.loop_id,
        PN_SUPERVISOR_STATE_DIR: join(project, '.pn-supervisor'),
      },
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
  }, 180_000);
});
