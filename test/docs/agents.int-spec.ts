import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessNotificationsClient } from 'process-notifications-client';
import { PnMcpClient } from '../agents/support/pn-mcp-client.js';
import { tempDir } from '../durability/support/temp-dir.js';
import { markedBlock, NPM_ENV, packAsDocumented, runDocumented, shellCommands } from '../support/doc-commands.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { startServer } from '../supervisor/support/test-helpers.js';

const PAGE = 'docs/agents.md';

// docs/agents.md as a user follows it: the tarballs packed and installed as docs/install.md
// says, into a project outside this repository with a Makefile; the shell recipe run as written
// by one shell (its evals share it), with the installed `pn` on PATH; then the MCP configuration
// started as an agent host would (its command and args as written, the session's values filled
// in) and driven by the MCP SDK's own client.
describe('the agents page', () => {
  let scratch: string;
  let data: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'pn-agents-'));
    data = tempDir();
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
    data.remove();
  });

  it('the shell recipe exits with make test’s status (2); the MCP configuration starts a command and waits for it', async () => {
    const packages = join(scratch, 'pn-packages');
    packAsDocumented(packages);
    const project = join(scratch, 'my-project');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-project', private: true }));
    writeFileSync(join(project, 'Makefile'), 'test:\n\t@echo testing\n\t@exit 3\n');
    expect(runDocumented(shellCommands(markedBlock('docs/install.md', 'install-supervisor', 'sh')), project, packages)).toMatch(/pn run/);
    expect(lstatSync(join(project, 'node_modules/pn-supervise')).isSymbolicLink()).toBe(false);

    server = await startServer(data.file('db'));
    // The environment of a user's shell: no PN_ variable but the two the operator gives, the project's bins on PATH.
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PN_')));
    const env = {
      ...clean,
      ...NPM_ENV,
      PATH: `${join(project, 'node_modules/.bin')}:${process.env.PATH}`,
      PN_SERVER_URL: server.url,
      PN_ADMIN_TOKEN: SERVER_ADMIN_TOKEN,
    };
    let output = '';
    try {
      output = execFileSync('sh', ['-c', markedBlock(PAGE, 'agents-shell', 'sh')], {
        cwd: project,
        env,
        encoding: 'utf8',
        timeout: 120_000,
      });
    } catch (error) {
      throw new Error(`the recipe failed: ${String((error as { stderr?: string }).stderr ?? error)}`);
    }
    // make exits 2 when a recipe fails (its recipe here exits 3): pn wait exits with make's status.
    const [waited, status] = output.trim().split('\n');
    expect(waited).toMatch(/^[0-9a-f-]{36} exited exit_code=2 signal=-$/);
    expect(status).toBe('2');

    // The session and loop the recipe opened hold what it says.
    const admin = new ProcessNotificationsClient({ baseUrl: server.url, token: SERVER_ADMIN_TOKEN });
    const { sessions } = await admin.adminSessions();
    expect(sessions).toHaveLength(1);

    // The MCP configuration, for a fresh session and loop.
    const session = await admin.createSession();
    const loop = await admin.withToken(session.token).openLoop(session.session_id);
    const values: Record<string, string> = {
      PN_SERVER_URL: server.url,
      PN_TOKEN: session.token,
      PN_SESSION_ID: session.session_id,
      PN_LOOP_ID: loop.loop_id,
    };
    const config = JSON.parse(markedBlock(PAGE, 'agents-mcp-config', 'json')) as {
      mcpServers: { pn: { command: string; args: string[]; env: Record<string, string> } };
    };
    const { command, args, env: configured } = config.mcpServers.pn;
    expect(Object.keys(configured).sort()).toEqual(Object.keys(values).sort());
    // npx must find the installed pn, never fetch a package of that name: npm_config_yes=false refuses to.
    const host = await PnMcpClient.connect(command, args, {
      env: { ...NPM_ENV, npm_config_yes: 'false', PATH: process.env.PATH!, HOME: process.env.HOME ?? scratch, ...values },
      cwd: project,
    });
    try {
      const started = await host.call('start_command', { argv: ['make', 'test'] });
      expect(started.isError).toBe(false);
      const waitedByTool = await host.call('wait_for_completion', { command_id: started.structured!.command_id, timeout_s: 120 });
      expect(waitedByTool.structured).toMatchObject({ done: true, notification: { state: 'exited', outcome: { exit_code: 2 } } });
    } finally {
      await host.close();
    }
  }, 400_000);
});
