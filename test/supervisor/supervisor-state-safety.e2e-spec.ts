import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ProcessIdentity } from '../../libs/pn-supervise/src/process-identity.js';
import { tempDir } from '../durability/support/temp-dir.js';
import type { ServerProcess } from '../support/server-process.js';
import { TestSession } from './support/api.js';
import { IDS_LINE } from './support/expect-records.js';
import { stateEntry } from './support/state-entry.fixture.js';
import { SupervisorProcess } from './support/supervisor-process.js';
import { eventually, startServer } from './support/test-helpers.js';

// The state directory and the token as an attacker (another local user) or an accident (a
// torn file, a directory shared between containers) leave them (spec section 10; issue 36).
// They need root (chown, unshare --pid), as the test machine gives: root is the victim, `nobody`
// the other user.

const NOBODY = Number(execFileSync('id', ['-u', 'nobody']).toString());

describe('pn-supervise: what it trusts in its state directory and its token', () => {
  const dir = tempDir();
  let server: ServerProcess;
  const children: ChildProcess[] = [];
  const supervisors: SupervisorProcess[] = [];

  beforeAll(async () => {
    server = await startServer(dir.file('server.db'));
  });
  afterEach(() => {
    supervisors.splice(0).forEach((supervisor) => supervisor.dispose());
    children.splice(0).forEach((child) => child.kill('SIGKILL'));
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    dir.remove();
  });

  let places = 0;
  const place = (): string => {
    const path = dir.file(`place-${++places}`);
    mkdirSync(path);
    return path;
  };
  /** Runs a supervisor to its end (killed after the test if it hangs). */
  const run = (
    args: readonly string[],
    options: Parameters<typeof SupervisorProcess.start>[1] = {},
  ): ReturnType<typeof SupervisorProcess.run> => {
    const supervisor = SupervisorProcess.start(args, { ...options, group: true });
    supervisors.push(supervisor);
    return supervisor.exit;
  };
  /** A process of the victim's, which a planted entry names as its command. */
  const victimProcess = async (): Promise<ChildProcess> => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(child);
    await new Promise((done) => child.once('spawn', done));
    return child;
  };

  it('the default ./.pn-supervisor, created by another user in a shared directory: refused before the command runs; a planted entry kills nothing, publishes nothing', async () => {
    const session = await TestSession.open(server.url);
    // Like /tmp: everybody may create in it.
    const shared = place();
    chmodSync(shared, 0o1777);
    const planted = join(shared, '.pn-supervisor');
    mkdirSync(planted);
    chownSync(planted, NOBODY, NOBODY);
    chmodSync(planted, 0o777);
    const victim = await victimProcess();
    const entry = stateEntry({
      session_id: session.sessionId,
      loop_id: session.loopId,
      process_handle: 'planted',
      started_at: '2026-01-01T00:00:01.000Z',
      published: ['started'],
      command_process: ProcessIdentity.of(victim.pid!),
    });
    // Its owner: a pid that does not run.
    const entryFile = join(planted, `${entry.command_id}.4194303.1.json`);
    writeFileSync(entryFile, JSON.stringify(entry));
    chownSync(entryFile, NOBODY, NOBODY);

    const marker = join(shared, 'ran');
    const result = await run([...session.supervisorArgs, '--', 'touch', marker], { cwd: shared });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^pn-supervise: refusing the state directory .*\.pn-supervisor: it is owned by another user[^\n]*\n$/);
    expect(existsSync(marker)).toBe(false);
    expect(ProcessIdentity.isRunning(ProcessIdentity.of(victim.pid!))).toBe(true);
    expect(await session.processRecords()).toEqual([]);
    // status and forget do not read or change it either.
    expect((await run(['status'], { cwd: shared })).status).toBe(2);
    expect((await run(['forget', entry.command_id], { cwd: shared })).status).toBe(2);
    expect(readdirSync(planted)).toEqual([`${entry.command_id}.4194303.1.json`]);
  });

  it('a state directory of the user that group or others may write: refused before the command runs', async () => {
    const session = await TestSession.open(server.url);
    const stateDir = join(place(), 'state');
    mkdirSync(stateDir);
    chmodSync(stateDir, 0o775);
    const marker = `${stateDir}.ran`;
    const result = await run([...session.supervisorArgs, '--state-dir', stateDir, '--', 'touch', marker]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^pn-supervise: refusing the state directory .*: group or others may write to it \(mode 775\)[^\n]*\n$/);
    expect(existsSync(marker)).toBe(false);
    expect(await session.processRecords()).toEqual([]);
  });

  it('a directory it creates is 0700', async () => {
    const session = await TestSession.open(server.url);
    const stateDir = join(place(), 'new', 'state');
    expect((await run([...session.supervisorArgs, '--state-dir', stateDir, '--', 'true'])).status).toBe(0);
    expect(execFileSync('stat', ['-c', '%a', stateDir]).toString().trim()).toBe('700');
  });

  it('status prints entry fields escaped: a handle with terminal escapes cannot rewrite the terminal or forge a field', async () => {
    const stateDir = join(place(), 'state');
    mkdirSync(stateDir, { mode: 0o700 });
    const entry = stateEntry({ process_handle: 'make\u001b]0;owned\u0007\u001b[2J refused=no\n' });
    writeFileSync(join(stateDir, `${entry.command_id}.4194303.1.json`), JSON.stringify(entry));
    const status = await run(['status', '--state-dir', stateDir]);
    // On stderr only what to do about it, no value of the entry.
    expect(status).toMatchObject({
      status: 0,
      stderr: expect.stringMatching(/^pn-supervise: 1 entry waits for the next run [ -~]*\n$/),
    });
    expect(status.stdout).toBe(
      `${entry.command_id} session=${entry.session_id} loop=${entry.loop_id} ` +
        'handle=make\\x1b]0;owned\\x07\\x1b[2J\\x20refused=no\\x0a left=lost,notification supervisor=gone refused=no\n',
    );
  });

  // Each bad thing beside a good abandoned entry of the session, which must still be delivered.
  const badEntries: Array<[string, (path: string) => void, string]> = [
    ['a torn entry', (path) => writeFileSync(path, '{"version":1,"command_id":"'), 'not a complete JSON entry'],
    ['an entry that is not JSON', (path) => writeFileSync(path, 'garbage\n'), 'not a complete JSON entry'],
    ['JSON that is not an entry', (path) => writeFileSync(path, JSON.stringify({ version: 1, command_id: 42 })), 'not a state entry'],
    [
      'a symbolic link to a torn entry',
      (path) => {
        // The target outside the state directory.
        writeFileSync(`${dirname(path)}.target`, '{"ver');
        symlinkSync(`${dirname(path)}.target`, path);
      },
      'a symbolic link',
    ],
    ['a FIFO named like an entry', (path) => execFileSync('mkfifo', [path]), 'not a regular file'],
    [
      'an entry another user owns',
      (path) => {
        writeFileSync(path, JSON.stringify(stateEntry()));
        chownSync(path, NOBODY, NOBODY);
      },
      'owned by another user',
    ],
  ];
  it.each(badEntries)(
    '%s is skipped and reported; the command runs, other entries are finished, status still lists',
    async (_what, plant, reason) => {
      const session = await TestSession.open(server.url);
      const stateDir = join(place(), 'state');
      mkdirSync(stateDir, { mode: 0o700 });
      const badName = `${randomUUID()}.4194303.1.json`;
      plant(join(stateDir, badName));
      const good = stateEntry({
        session_id: session.sessionId,
        loop_id: session.loopId,
        process_handle: 'leftover',
        started_at: '2026-01-01T00:00:01.000Z',
        completion: {
          state: 'exited',
          reason: 'exited',
          has_exit_code: true,
          exit_code: 0,
          finished_at: '2026-01-01T00:00:02.000Z',
          exit_status: 0,
        },
      });
      writeFileSync(join(stateDir, `${good.command_id}.4194303.1.json`), JSON.stringify(good), { mode: 0o600 });

      const marker = `${stateDir}.ran`;
      const result = await run([...session.supervisorArgs, '--state-dir', stateDir, '--', 'touch', marker]);
      expect(result.status).toBe(0);
      expect(existsSync(marker)).toBe(true);
      expect(result.stderr).toContain(`skipped ${badName} in ${stateDir}: ${reason}`);
      const notifications = (await session.processRecords()).filter((r) => r.kind === 'process_notification');
      expect(notifications.map((r) => r.idempotency_id)).toEqual([good.command_id, IDS_LINE.exec(result.stderr)![1]]);

      const status = await run(['status', '--state-dir', stateDir]);
      expect(status).toMatchObject({ status: 0, stdout: '' });
      expect(status.stderr).toContain(`skipped ${badName} in ${stateDir}: ${reason}`);
      // forget removes it (only the link, for a link).
      expect((await run(['forget', badName.slice(0, 36), '--state-dir', stateDir])).status).toBe(0);
      expect(readdirSync(stateDir)).toEqual([]);
    },
    30_000,
  );

  it('a state directory shared with a supervisor in another PID namespace: its running entry is left alone, its completion delivered', async () => {
    const session = await TestSession.open(server.url);
    const stateDir = join(place(), 'state');
    const go = `${stateDir}.go`;
    // In the namespace the supervisor is pid 1; here pid 1 is another process (another start time).
    const contained = SupervisorProcess.start(
      [
        ...session.supervisorArgs,
        '--state-dir',
        stateDir,
        '--handle',
        'contained',
        '--',
        'sh',
        '-c',
        `until [ -e ${go} ]; do sleep 0.1; done`,
      ],
      { wrapper: ['unshare', '--pid', '--fork', '--mount-proc'], group: true },
    );
    supervisors.push(contained);
    await contained.waitForStderr(IDS_LINE);
    await eventually(async () => (await session.processRecords()).some((r) => r.kind === 'started'), 'the started record');
    const containedId = IDS_LINE.exec(contained.stderr)![1]!;

    const host = await run([...session.supervisorArgs, '--state-dir', stateDir, '--handle', 'host', '--', 'true']);
    expect(host.status).toBe(0);
    expect(host.stderr).not.toContain('finishing an earlier run');
    expect(host.stderr).toContain(`1 entry of a supervisor in another PID namespace or on another machine left alone in ${stateDir}`);
    const status = await run(['status', '--state-dir', stateDir]);
    expect(status.stdout).toMatch(
      new RegExp(`^${containedId} .* handle=contained left=completed,notification supervisor=other-pid-namespace refused=no\\n$`),
    );
    const forget = await run(['forget', containedId, '--state-dir', stateDir]);
    expect(forget.status).toBe(1);
    expect(forget.stderr).toMatch(/another PID namespace/);

    writeFileSync(go, '');
    expect((await contained.exit).status).toBe(0);
    const records = await session.processRecords();
    expect(records.filter((r) => r.payload.process_handle === 'contained').map((r) => [r.kind, r.payload.state])).toEqual([
      ['started', 'running'],
      ['completed', 'exited'],
      ['process_notification', 'exited'],
    ]);
    expect(records.some((r) => r.kind === 'lost')).toBe(false);
    expect(readdirSync(stateDir)).toEqual([]);
  });

  describe('tokens', () => {
    const refused = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
      const stateDir = join(place(), 'state');
      const marker = `${stateDir}.ran`;
      // --deadline: a token that cannot be sent is otherwise retried for ever.
      const result = await run([...args, '--deadline', '1', '--state-dir', stateDir, '--', 'touch', marker], { env });
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(stateDir)).toBe(false);
      expect(result.status).toBe(2);
      return result.stderr;
    };
    const tokenFile = (content: string | Buffer): string => {
      const path = join(place(), 'token');
      writeFileSync(path, content, { mode: 0o600 });
      return path;
    };

    it('a token of binary bytes (file or environment) is a usage error, and is not echoed', async () => {
      const session = await TestSession.open(server.url);
      const binary = Buffer.from([0x61, 0x00, 0xff, 0x1b, 0x5b, 0x32, 0x4a, 0x0a]);
      expect(await refused([...session.supervisorArgsWithoutToken, '--token-file', tokenFile(binary)])).toMatch(
        /^pn-supervise: the token in --token-file .* must be 1 to 4096 printable ASCII characters \(no spaces or control characters\)\n/,
      );
      const stderr = await refused(session.supervisorArgsWithoutToken, { PN_TOKEN: 'abc\u0001déf' });
      expect(stderr).toMatch(
        /^pn-supervise: the token in PN_TOKEN must be 1 to 4096 printable ASCII characters \(no spaces or control characters\)\n/,
      );
      expect(stderr).not.toContain('abc');
      expect(await session.processRecords()).toEqual([]);
    });

    it('a token longer than 4096 characters (a 32 MB file, a long variable) is a usage error', async () => {
      const session = await TestSession.open(server.url);
      const huge = tokenFile(Buffer.alloc(32 * 1024 * 1024, 'a'));
      expect(await refused([...session.supervisorArgsWithoutToken, '--token-file', huge])).toMatch(
        /must be 1 to 4096 printable ASCII characters/,
      );
      expect(await refused(session.supervisorArgsWithoutToken, { PN_TOKEN: 'a'.repeat(4097) })).toMatch(/PN_TOKEN must be 1 to 4096/);
    });

    it('a token file other users can read: a warning, then the run', async () => {
      const session = await TestSession.open(server.url);
      const path = tokenFile(`${session.token}\n`);
      chmodSync(path, 0o644);
      const result = await run([
        ...session.supervisorArgsWithoutToken,
        '--token-file',
        path,
        '--state-dir',
        join(place(), 'state'),
        '--',
        'true',
      ]);
      expect(result.status).toBe(0);
      expect(result.stderr).toMatch(/^pn-supervise: warning: --token-file .* is readable by group or others \(mode 644\)/m);
      chmodSync(path, 0o600);
      const quiet = await run([
        ...session.supervisorArgsWithoutToken,
        '--token-file',
        path,
        '--state-dir',
        join(place(), 'state'),
        '--',
        'true',
      ]);
      expect(quiet.stderr).not.toMatch(/warning/);
    });
  });
});
