import { LIFECYCLE_KINDS } from 'process-notifications-contract';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tempDir } from '../durability/support/temp-dir.js';
import { SERVER_ADMIN_TOKEN } from '../support/server-process.js';
import type { ServerProcess } from '../support/server-process.js';
import { TestSession } from './support/api.js';
import { byDefault, expectRun } from './support/expect-records.js';
import { SupervisorProcess } from './support/supervisor-process.js';
import { startServer } from './support/test-helpers.js';

// The supervisor keeps its credentials to itself (issue 45, findings 3 and 8): the command it
// runs gets none of its PN_* variables (the token among them) unless the user passes one by
// name; a closed session is refused before the command runs, also with the admin token; a
// password in --server is a usage error that never repeats it; an answer that is not the
// service's JSON is one clear line. Against real server processes and real commands.

/**
 * A command playing the attacker: it writes down every PN_* variable it sees, and what the
 * supervisor's watchdog (the process started beside it) sees, then closes the session with
 * any token it found. Argument: the file to write, the server's URL, the session id.
 */
const ATTACKER = `
const fs = require('node:fs');
const [out, server, session] = process.argv.slice(1);
const pn = (env) => Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('PN_')));
const environOf = (pid) => Object.fromEntries(
  fs.readFileSync('/proc/' + pid + '/environ', 'latin1').split('\\0').filter(Boolean)
    .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
);
const watchdog = () => {
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\\d+$/.test(name))) {
    try {
      const argv = fs.readFileSync('/proc/' + pid + '/cmdline', 'latin1').split('\\0');
      if (argv.some((arg) => arg.endsWith('watchdog-main.js')) && argv.includes(String(process.pid))) return pid;
    } catch {}
  }
};
(async () => {
  let pid;
  for (let i = 0; i < 100 && !(pid = watchdog()); i++) await new Promise((next) => setTimeout(next, 50));
  const seen = { command: pn(process.env), watchdog: pid ? pn(environOf(pid)) : 'not found' };
  const closedWith = [];
  for (const token of [process.env.PN_TOKEN, process.env.PN_ADMIN_TOKEN].filter(Boolean)) {
    const answer = await fetch(server + '/v1/sessions/' + session + '/close', { method: 'POST', headers: { Authorization: 'Bearer ' + token } });
    if (answer.ok) closedWith.push(answer.status);
  }
  fs.writeFileSync(out, JSON.stringify({ ...seen, closedWith }));
})();
`;

const PROCESS_KINDS: readonly string[] = [...LIFECYCLE_KINDS, 'process_notification'];

async function adminCall(url: string, method = 'GET'): Promise<Record<string, unknown>> {
  const answer = await fetch(url, { method, headers: { Authorization: `Bearer ${SERVER_ADMIN_TOKEN}` } });
  if (!answer.ok) throw new Error(`${method} ${url}: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as Record<string, unknown>;
}

describe('pn-supervise keeps its credentials to itself', () => {
  let dir: ReturnType<typeof tempDir>;
  const serverDir = tempDir();
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer(serverDir.file('server.db'));
  });
  afterAll(async () => {
    await server.stop('SIGKILL');
    serverDir.remove();
  });
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  const sessionState = async (session: TestSession): Promise<unknown> =>
    (await adminCall(`${server.url}/v1/sessions/${session.sessionId}`)).state;

  it('the command sees no PN_* variable (neither PN_TOKEN nor PN_ADMIN_TOKEN), nor does the watchdog, and cannot close the session', async () => {
    const session = await TestSession.open(server.url);
    const seen = dir.file('seen.json');
    // The documented way: everything in the environment, the token in PN_TOKEN.
    const env = {
      PN_SERVER_URL: server.url,
      PN_TOKEN: session.token,
      PN_SESSION_ID: session.sessionId,
      PN_LOOP_ID: session.loopId,
      PN_SUPERVISOR_STATE_DIR: dir.file('state'),
      PN_ADMIN_TOKEN: SERVER_ADMIN_TOKEN,
      PN_ANYTHING_ELSE: 'x',
      NOT_THE_SUPERVISORS: 'kept',
    };
    const result = await SupervisorProcess.run(['--', process.execPath, '-e', ATTACKER, seen, server.url, session.sessionId], { env });
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual({ command: {}, watchdog: {}, closedWith: [] });
    // What the supervisor said is what happened: delivered, exit 0, the session still open.
    expect(result.status).toBe(0);
    await expectRun(session, { handle: byDefault('node'), state: 'exited', reason: 'exited', exitCode: 0 });
    expect(await sessionState(session)).toBe('open');
  });

  it('--pass-env NAME gives the command exactly the PN_* variables named, as the supervisor got them; other variables pass as always', async () => {
    const session = await TestSession.open(server.url);
    const seen = dir.file('seen.json');
    const script = `require('fs').writeFileSync(process.argv[1], JSON.stringify({
      pn: Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('PN_'))),
      other: process.env.NOT_THE_SUPERVISORS,
    }))`;
    const result = await SupervisorProcess.run(
      ['--pass-env', 'PN_SESSION_ID', '--pass-env=PN_LOOP_ID', '--pass-env', 'PN_NOT_SET', '--', process.execPath, '-e', script, seen],
      {
        env: {
          PN_SERVER_URL: server.url,
          PN_TOKEN: session.token,
          PN_SESSION_ID: session.sessionId,
          PN_LOOP_ID: session.loopId,
          PN_SUPERVISOR_STATE_DIR: dir.file('state'),
          NOT_THE_SUPERVISORS: 'kept',
        },
      },
    );
    expect(result.status).toBe(0);
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual({
      pn: { PN_SESSION_ID: session.sessionId, PN_LOOP_ID: session.loopId },
      other: 'kept',
    });
  });

  it('--pass-env with a name that is not PN_*: a usage error, the command never runs', async () => {
    const session = await TestSession.open(server.url);
    const marker = dir.file('ran');
    const result = await SupervisorProcess.run([
      ...session.supervisorArgs,
      '--state-dir',
      dir.file('state'),
      '--pass-env',
      'HOME',
      '--',
      'touch',
      marker,
    ]);
    expect({ status: result.status, ran: existsSync(marker) }).toEqual({ status: 2, ran: false });
    expect(result.stderr).toMatch(/^pn-supervise: --pass-env takes the name of a PN_\* variable [^\n]*"HOME"\n/);
  });

  it('a closed session, with the admin token: refused in one line before the command runs, exit 2, nothing kept or sent', async () => {
    const session = await TestSession.open(server.url);
    await adminCall(`${server.url}/v1/sessions/${session.sessionId}/close`, 'POST');
    const tokenFile = dir.file('admin-token');
    writeFileSync(tokenFile, SERVER_ADMIN_TOKEN, { mode: 0o600 });
    const marker = dir.file('ran');
    const stateDir = dir.file('state');
    const result = await SupervisorProcess.run([
      ...session.supervisorArgsWithoutToken,
      '--token-file',
      tokenFile,
      '--state-dir',
      stateDir,
      '--',
      'touch',
      marker,
    ]);
    expect({ status: result.status, ran: existsSync(marker) }).toEqual({ status: 2, ran: false });
    expect(result.stderr).toMatch(
      new RegExp(
        `^pn-supervise: not running the command: session ${session.sessionId} is closed \\(at [^)]+\\): it takes no more records\\n$`,
      ),
    );
    expect(readdirSync(stateDir)).toEqual([]);
    const journal = (await adminCall(`${server.url}/v1/sessions/${session.sessionId}/journal?limit=1000`)).records as Array<{
      kind: string;
    }>;
    expect(journal.filter((record) => PROCESS_KINDS.includes(record.kind))).toEqual([]);
  });

  it('a user name or password in --server or PN_SERVER_URL: a usage error that never repeats it, exit 2, the command never runs', async () => {
    const session = await TestSession.open(server.url);
    const port = new URL(server.url).port;
    const cases = [
      `http://user:secret@127.0.0.1:${port}`,
      `http://secret@127.0.0.1:${port}`,
      `http://:secret@127.0.0.1:${port}`,
      `ftp://user:secret@127.0.0.1:${port}`,
      `http//user:secret@127.0.0.1:${port}`,
    ];
    const withServer = (url: string): string[] => session.supervisorArgs.map((arg) => (arg === server.url ? url : arg));
    const withoutServer = session.supervisorArgs.filter((arg, index, all) => arg !== '--server' && all[index - 1] !== '--server');
    for (const url of cases) {
      for (const [how, args, env] of [
        ['--server', withServer(url), {}],
        ['PN_SERVER_URL', withoutServer, { PN_SERVER_URL: url }],
      ] as const) {
        const marker = dir.file('ran');
        const result = await SupervisorProcess.run([...args, '--state-dir', dir.file('state'), '--', 'touch', marker], { env });
        expect({ url, how, status: result.status, ran: existsSync(marker) }).toEqual({ url, how, status: 2, ran: false });
        expect(result.stderr).toMatch(/^pn-supervise: --server must [^\n]*\nRun pn-supervise --help for the options\.\n$/);
        expect(result.stderr).not.toContain('secret');
      }
    }
    expect(await session.processRecords()).toEqual([]);
  });

  describe('a server that answers 200 with a body that is not JSON (a wrong --server)', () => {
    let wrong: Server;
    let wrongUrl: string;
    beforeAll(async () => {
      wrong = createServer((request, response) => {
        request.resume();
        response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>not the service\u001b[2J</html>');
      });
      await new Promise<void>((done) => wrong.listen(0, '127.0.0.1', done));
      wrongUrl = `http://127.0.0.1:${(wrong.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((done) => wrong.close(done)));

    it('the check: one clear line, exit 2 at once, the command never runs', async () => {
      const session = await TestSession.open(server.url);
      const marker = dir.file('ran');
      const args = session.supervisorArgs.map((arg) => (arg === server.url ? wrongUrl : arg));
      const result = await SupervisorProcess.run([...args, '--state-dir', dir.file('state'), '--', 'touch', marker]);
      expect({ status: result.status, ran: existsSync(marker) }).toEqual({ status: 2, ran: false });
      expect(result.stderr).toBe(
        "pn-supervise: not running the command: the server answered the check with a body that is not JSON: is --server the service's base URL?\n",
      );
      expect(readdirSync(dir.file('state'))).toEqual([]);
    });

    it('with --no-check: the command runs, then one clear line, exit 2, the entry kept (not marked refused) for a later run', async () => {
      const session = await TestSession.open(server.url);
      const marker = dir.file('ran');
      const stateDir = dir.file('state');
      const args = session.supervisorArgs.map((arg) => (arg === server.url ? wrongUrl : arg));
      const result = await SupervisorProcess.run([...args, '--no-check', '--no-ids', '--state-dir', stateDir, '--', 'touch', marker]);
      expect({ status: result.status, ran: existsSync(marker) }).toEqual({ status: 2, ran: true });
      expect(result.stderr).toMatch(
        /^pn-supervise: the server answered the started record with a body that is not JSON: is --server the service's base URL\?; command [0-9a-f-]{36} is kept in \S+: the next run with this state directory sends it again\n$/,
      );
      const [entry] = readdirSync(stateDir);
      expect(JSON.parse(readFileSync(`${stateDir}/${entry}`, 'utf8'))).not.toHaveProperty('rejected');
      // The next run against the real service delivers it under its ids.
      const next = await SupervisorProcess.run([...session.supervisorArgs, '--state-dir', stateDir, '--', 'true']);
      expect(next.status).toBe(0);
      expect(readdirSync(stateDir)).toEqual([]);
      expect((await session.pending()).map((notification) => notification.process_handle)).toEqual([
        expect.stringMatching(/^touch-/),
        expect.stringMatching(/^true-/),
      ]);
    });
  });
});
