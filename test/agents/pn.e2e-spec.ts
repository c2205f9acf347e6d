import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { tempDir } from '../durability/support/temp-dir.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { TestSession } from '../supervisor/support/api.js';
import { SupervisorProcess } from '../supervisor/support/supervisor-process.js';
import { eventually, freePort, startServer } from '../supervisor/support/test-helpers.js';
import { PN_MAIN, PnProcess, pnEnvironment } from './support/pn-process.js';

// `pn` (spec section 16) against the real server, with real supervisors and commands: what it
// says and exits with, against what the journal and the processes show really happened.

describe('pn: run in the background, wait with the command’s exit status', () => {
  const dir = tempDir();
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer(dir.file('server.db'));
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    dir.remove();
  });

  /** `pn run -- ...argv` in `cwd`: its command id, once it passed the check. */
  const run = async (session: TestSession, args: string[], cwd = dir.path): Promise<string> => {
    const result = await PnProcess.run(['run', ...args], { env: pnEnvironment(session), cwd });
    expect(result).toMatchObject({ status: 0, stderr: '' });
    expect(result.stdout).toMatch(/^command_id=[0-9a-f-]{36}\nlog=\/.+\.log\n$/);
    return PnProcess.commandIdOf(result.stdout);
  };

  // SIGSEGV and SIGUSR1 come from the outcome's `signal` (section 16): without it the outcome
  // says only `killed`, and pn wait would exit 137 for both.
  it.each([
    ['exit 0', ['--', 'sh', '-c', 'exit 0'], 0, 'exited exit_code=0 signal=-'],
    ['exit 3', ['--', 'sh', '-c', 'exit 3'], 3, 'exited exit_code=3 signal=-'],
    ['SIGSEGV', ['--', 'sh', '-c', 'kill -SEGV $$'], 128 + constants.signals.SIGSEGV, 'killed exit_code=- signal=SIGSEGV'],
    ['SIGUSR1', ['--', 'sh', '-c', 'kill -USR1 $$'], 128 + constants.signals.SIGUSR1, 'killed exit_code=- signal=SIGUSR1'],
    ['the supervisor’s timeout', ['--timeout', '1', '--', 'sleep', '30'], 124, 'timed_out'],
    ['a command that does not exist', ['--', `no-such-command-${randomUUID()}`], 127, 'failed exit_code=- signal=-'],
  ])('%s: pn wait says how it ended and exits as a shell would have', async (_what, args, status, line) => {
    const session = await TestSession.open(server.url);
    const commandId = await run(session, args);
    const waited = await PnProcess.run(['wait', commandId, '--timeout', '60'], { env: pnEnvironment(session) });
    const rest = line.includes('signal=') ? '' : ' exit_code=- signal=\\S+';
    expect(waited.stdout).toMatch(new RegExp(`^${commandId} ${line}${rest}\\n$`));
    expect(waited.status).toBe(status);
    // What it said is what the journal holds.
    const [pending] = await session.pending();
    expect(pending).toMatchObject({ command_id: commandId, state: line.split(' ')[0] });
  });

  it('a completion that came before pn wait is found; --json prints the notification', async () => {
    const session = await TestSession.open(server.url);
    const commandId = await run(session, ['--', 'sh', '-c', 'exit 5']);
    await eventually(async () => (await session.pending()).some((n) => n.command_id === commandId && n.outcome !== null), 'the completion');
    const waited = await PnProcess.run(['wait', commandId, '--json'], { env: pnEnvironment(session) });
    expect(waited.status).toBe(5);
    expect(JSON.parse(waited.stdout)).toEqual((await session.pending())[0]);
  });

  it('a lost command (its supervisor SIGKILLed, the next run with the state directory restores it): 125', async () => {
    const session = await TestSession.open(server.url);
    const stateDir = dir.file(`state-${randomUUID()}`);
    const first = SupervisorProcess.start([...session.supervisorArgs, '--state-dir', stateDir, '--', 'sleep', '30'], { group: true });
    const [, commandId] = /command_id=([0-9a-f-]{36})/.exec(await first.waitForStderr(/command_id=\S+/))!;
    first.killGroup();
    await first.exit;
    const restorer = await SupervisorProcess.run([...session.supervisorArgs, '--state-dir', stateDir, '--', 'true']);
    expect(restorer.status).toBe(0);
    const waited = await PnProcess.run(['wait', commandId!, '--timeout', '30'], { env: pnEnvironment(session) });
    expect(waited.stdout).toBe(`${commandId} lost_on_restore exit_code=- signal=-\n`);
    expect(waited.status).toBe(125);
  });

  it('nothing by the timeout: 75, nothing on stdout', async () => {
    const session = await TestSession.open(server.url);
    const waited = await PnProcess.run(['wait', randomUUID(), '--timeout', '1'], { env: pnEnvironment(session) });
    expect(waited).toMatchObject({ status: 75, stdout: '' });
    expect(waited.stderr).toMatch(/^pn: no completion of \S+ in loop \S+ within 1 s\n$/);
  });

  it('a server that does not answer: 69, one line naming it; pn run does not run the command', async () => {
    const session = await TestSession.open(server.url);
    const url = `http://127.0.0.1:${await freePort()}`;
    const env = { ...pnEnvironment(session), PN_SERVER_URL: url };
    const waited = await PnProcess.run(['wait', randomUUID()], { env });
    expect(waited.status).toBe(69);
    expect(waited.stderr).toMatch(new RegExp(`^pn: [^\\n]*${url.replace(/[.]/g, '\\.')}[^\\n]*\\n$`));
    const marker = dir.file(`ran-${randomUUID()}`);
    const ran = await PnProcess.run(['run', '--start-wait', '1', '--', 'touch', marker], { env, cwd: dir.path });
    expect(ran.status).toBe(69);
    expect(ran.stdout).toBe('');
    expect(ran.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
  });

  it('a refusal: 1 with the problem’s code and detail; pn run with a refused token: 2, not run', async () => {
    const session = await TestSession.open(server.url);
    const env = { ...pnEnvironment(session), PN_TOKEN: 'not-the-token' };
    const pending = await PnProcess.run(['pending'], { env });
    expect(pending.status).toBe(1);
    expect(pending.stderr).toMatch(/^pn: the server refused: unauthorized: .+\n$/);
    const marker = dir.file(`ran-${randomUUID()}`);
    const ran = await PnProcess.run(['run', '--', 'touch', marker], { env, cwd: dir.path });
    expect(ran.status).toBe(2);
    expect(ran.stderr).toMatch(/unauthorized/);
    expect(existsSync(marker)).toBe(false);
    expect(await session.processRecords()).toEqual([]);
  });

  it('pn session open and pn loop open: export lines for eval, the API’s answer with --json; no admin token: 2', async () => {
    const env = { PN_SERVER_URL: server.url, PN_ADMIN_TOKEN: SERVER_ADMIN_TOKEN };
    const opened = await PnProcess.run(['session', 'open'], { env });
    expect(opened.status).toBe(0);
    expect(opened.stdout).toMatch(/^export PN_SERVER_URL='[^']+'\nexport PN_SESSION_ID='[0-9a-f-]{36}'\nexport PN_TOKEN='[^']+'\n$/);
    const exported = Object.fromEntries([...opened.stdout.matchAll(/^export (\w+)='([^']*)'$/gm)].map((match) => [match[1]!, match[2]!]));
    const loop = await PnProcess.run(['loop', 'open', '--json'], { env: exported });
    expect(loop.status).toBe(0);
    expect(JSON.parse(loop.stdout)).toMatchObject({ engine: 'native', state: 'running', loop_id: expect.any(String) });
    const session = await PnProcess.run(['session', 'open', '--json'], { env });
    expect(JSON.parse(session.stdout)).toEqual({ session_id: expect.any(String), token: expect.any(String) });
    const noAdmin = await PnProcess.run(['session', 'open'], { env: { PN_SERVER_URL: server.url } });
    expect(noAdmin).toMatchObject({ status: 2, stdout: '', stderr: 'pn: missing --admin-token (or PN_ADMIN_TOKEN)\n' });
  });

  it('pn mcp without its loop: 2, one line, before serving', async () => {
    const mcp = await PnProcess.run(['mcp'], { env: { PN_SERVER_URL: server.url, PN_TOKEN: 't' } });
    expect(mcp).toMatchObject({ status: 2, stdout: '', stderr: 'pn: missing --session (or PN_SESSION_ID)\n' });
  });

  it('a usage error: 2, one line and the hint', async () => {
    const waited = await PnProcess.run(['wait', 'not-a-uuid']);
    expect(waited.status).toBe(2);
    expect(waited.stderr).toBe('pn: COMMAND_ID must be a UUID, got "not-a-uuid"\nRun pn --help for the commands.\n');
  });

  it('pn run’s command survives the process group of the shell that ran it; the token is in no argv and no log', async () => {
    const session = await TestSession.open(server.url);
    const marker = dir.file(`done-${randomUUID()}`);
    // A shell as an agent's tool call runs it: pn run, then the shell lingers; the whole group is then killed.
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${PN_MAIN}" run -- sh -c 'sleep 2; echo done > "${marker}"'; sleep 60`], {
      env: { ...process.env, ...pnEnvironment(session) },
      cwd: dir.path,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    shell.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await eventually(() => /^log=/m.test(stdout), 'pn run’s lines');
    const commandId = PnProcess.commandIdOf(stdout);
    // While it runs: no process shows the token in its command line.
    const commandLines = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      });
    expect(commandLines.filter((line) => line.includes(commandId)).length).toBeGreaterThan(0);
    expect(commandLines.filter((line) => line.includes(session.token))).toEqual([]);
    process.kill(-shell.pid!, 'SIGKILL');
    const waited = await PnProcess.run(['wait', commandId, '--timeout', '60'], { env: pnEnvironment(session) });
    expect(waited.status).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('done\n');
    const log = /^log=(.+)$/m.exec(stdout)![1]!;
    expect(readFileSync(log, 'utf8')).toContain(`command_id=${commandId}`);
    expect(readFileSync(log, 'utf8')).not.toContain(session.token);
  });

  it('pn pending and pn consume: one line each, consumed, already consumed, and an id never accepted: 1', async () => {
    const session = await TestSession.open(server.url);
    const commandId = await run(session, ['--', 'sh', '-c', 'exit 2']);
    await PnProcess.run(['wait', commandId, '--timeout', '60'], { env: pnEnvironment(session) });
    const pending = await PnProcess.run(['pending'], { env: pnEnvironment(session) });
    expect(pending.status).toBe(0);
    expect(pending.stdout).toMatch(new RegExp(`^${commandId} sh-[0-9a-f]{8} exited exit_code=2 signal=- age=\\d+s\\n$`));
    const unknown = randomUUID();
    const consumed = await PnProcess.run(['consume', commandId, unknown], { env: pnEnvironment(session) });
    expect(consumed.stdout).toBe(`${commandId} consumed\n`);
    expect(consumed.stderr).toContain(unknown);
    expect(consumed.status).toBe(1);
    const again = await PnProcess.run(['consume', commandId], { env: pnEnvironment(session) });
    expect(again).toMatchObject({ status: 0, stdout: `${commandId} already consumed\n` });
    expect(await session.pending()).toEqual([]);
  });

  it('pn watch prints one JSON line per completion and exits 0 on SIGINT', async () => {
    const session = await TestSession.open(server.url);
    const watch = PnProcess.start(['watch'], { env: pnEnvironment(session) });
    const commandId = await run(session, ['--', 'sh', '-c', 'exit 6']);
    await eventually(() => watch.stdout.includes('"update":"outcome"') || /"exit_code":6/.test(watch.stdout), 'the completion in pn watch');
    watch.child.kill('SIGINT');
    const ended = await watch.exit;
    expect(ended.status).toBe(0);
    const lines = ended.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { update: string; notification: { command_id: string; outcome: { exit_code: number } | null } });
    expect(lines[0]).toMatchObject({ update: 'new', notification: { command_id: commandId } });
    expect(lines.at(-1)!.notification.outcome).toMatchObject({ exit_code: 6 });
  });
});
