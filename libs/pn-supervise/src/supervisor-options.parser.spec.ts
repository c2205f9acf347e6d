import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_TOKEN_BYTES, SupervisorOptionsParser } from './supervisor-options.parser.js';
import { UsageError } from './usage.error.js';

const SESSION = '0196f3c0-7b1a-7c3e-8f00-000000000001';
const LOOP = '0196f3c0-7b1a-7c3e-8f00-000000000002';
const REQUIRED = ['--server', 'http://127.0.0.1:3000', '--token', 't0k', '--session', SESSION, '--loop', LOOP];

const parseRun = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const parsed = SupervisorOptionsParser.parse(argv, env);
  if (parsed.kind !== 'run') throw new Error(`unexpected ${parsed.kind}`);
  return parsed;
};
const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseRun(argv, env).options;
const usageError = (argv: string[], env: NodeJS.ProcessEnv = {}): string => {
  try {
    SupervisorOptionsParser.parse(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no usage error');
};

describe('SupervisorOptionsParser', () => {
  it('reads every option of the table, both --name value and --name=value', () => {
    const options = parse([
      ...REQUIRED,
      '--handle=unit-tests',
      '--state-dir',
      '/var/tmp/pn',
      '--timeout',
      '1.5',
      '--output-limit=4096',
      '--command-id',
      '0196F3C0-7B1A-7C3E-8F00-0000000000AA',
      '--deadline',
      '30',
      '--shutdown-wait=2.5',
      '--start-wait',
      '4',
      '--quiet',
      '--no-ids',
      '--',
      'make',
      'test',
      '--verbose',
    ]);
    expect(options).toEqual({
      server: 'http://127.0.0.1:3000',
      token: 't0k',
      sessionId: SESSION,
      loopId: LOOP,
      handle: 'unit-tests',
      stateDir: '/var/tmp/pn',
      timeoutMs: 1500,
      outputLimit: 4096,
      commandId: '0196f3c0-7b1a-7c3e-8f00-0000000000aa',
      deadlineMs: 30_000,
      shutdownWaitMs: 2500,
      check: true,
      startWaitMs: 4000,
      commandEnv: {},
      quiet: true,
      ids: false,
      command: 'make',
      args: ['test', '--verbose'],
    });
  });

  it('falls back to the environment variables, options winning, and to the default state directory', () => {
    const env = { PN_SERVER_URL: 'https://pn.example', PN_TOKEN: 'env-token', PN_SESSION_ID: SESSION.toUpperCase(), PN_LOOP_ID: LOOP };
    expect(parse(['--', 'make'], env)).toMatchObject({
      server: 'https://pn.example',
      token: 'env-token',
      sessionId: SESSION,
      loopId: LOOP,
      stateDir: './.pn-supervisor',
      shutdownWaitMs: 10_000,
      check: true,
      startWaitMs: 30_000,
      ids: true,
    });
    expect(parse(['--no-check', '--', 'make'], env)).toMatchObject({ check: false });
    expect(() => parse(['--no-check', '--start-wait', '5', '--', 'make'], env)).toThrow('give --start-wait or --no-check, not both');
    expect(parse(['--', 'make'], env)).not.toHaveProperty('commandId');
    expect(parse(['--', 'make'], env)).not.toHaveProperty('deadlineMs');
    expect(parse(['--token', 'flag', '--', 'make'], { ...env, PN_SUPERVISOR_STATE_DIR: '/srv/pn' })).toMatchObject({
      token: 'flag',
      stateDir: '/srv/pn',
    });
  });

  it('the command gets the environment without any PN_* variable, except those named with --pass-env (repeatable)', () => {
    const env = {
      PN_SERVER_URL: 'https://pn.example',
      PN_TOKEN: 'env-token',
      PN_ADMIN_TOKEN: 'admin-token',
      PN_SESSION_ID: SESSION,
      PN_LOOP_ID: LOOP,
      PATH: '/usr/bin',
      pn_lower: 'not ours',
    };
    expect(parse(['--', 'make'], env).commandEnv).toEqual({ PATH: '/usr/bin', pn_lower: 'not ours' });
    expect(parse(['--pass-env', 'PN_SESSION_ID', '--pass-env=PN_LOOP_ID', '--pass-env', 'PN_UNSET', '--', 'make'], env).commandEnv).toEqual(
      {
        PATH: '/usr/bin',
        pn_lower: 'not ours',
        PN_SESSION_ID: SESSION,
        PN_LOOP_ID: LOOP,
      },
    );
    // Only as the supervisor got it: an option's value is not put into the command's environment.
    expect(parse(['--pass-env', 'PN_SESSION_ID', ...REQUIRED, '--', 'make'], {}).commandEnv).toEqual({});
    expect(usageError([...REQUIRED, '--pass-env', 'PATH', '--', 'make'])).toMatch(
      /^--pass-env takes the name of a PN_\* variable .*"PATH"$/,
    );
    expect(usageError([...REQUIRED, '--pass-env', 'PN_TOKEN=s3cr3t', '--', 'make'])).not.toContain('s3cr3t');
  });

  it('a user name or password in --server (or PN_SERVER_URL) is refused, and never repeated', () => {
    const withoutServer = [...REQUIRED.slice(2), '--', 'make'];
    for (const url of [
      'http://u:s3cr3t@127.0.0.1:3000',
      'https://s3cr3t@pn.example',
      'http://:s3cr3t@pn.example/',
      'ftp://u:s3cr3t@x',
      'http//u:s3cr3t@x',
    ]) {
      const fromOption = usageError(['--server', url, ...withoutServer]);
      const fromEnv = usageError(withoutServer, { PN_SERVER_URL: url });
      for (const message of [fromOption, fromEnv]) {
        expect(message).toMatch(/^--server must/);
        expect(message).not.toContain('s3cr3t');
      }
    }
    expect(usageError(['--server', 'http://u:p@pn.example:8080', ...withoutServer])).toBe(
      '--server must not hold a user name or password (give the token with PN_TOKEN or --token-file), got http://...@pn.example:8080',
    );
  });

  it('takes the command after --, or at the first argument that is not an option', () => {
    expect(parse([...REQUIRED, 'ls', '-l', '--', 'x'])).toMatchObject({ command: 'ls', args: ['-l', '--', 'x'] });
    expect(parse([...REQUIRED, '--', '--weird-name'])).toMatchObject({ command: '--weird-name', args: [] });
  });

  it('derives the handle from the command base name, made valid, then - and 8 random hex characters', () => {
    expect(SupervisorOptionsParser.baseHandle('make')).toBe('make');
    expect(SupervisorOptionsParser.baseHandle('/usr/local/bin/python3.12')).toBe('python3-12');
    expect(SupervisorOptionsParser.baseHandle('./run tests.sh')).toBe('run-tests-sh');
    expect(SupervisorOptionsParser.baseHandle('build/')).toBe('build');
    expect(SupervisorOptionsParser.baseHandle('日本')).toBe('--');
    expect(SupervisorOptionsParser.baseHandle('/')).toBe('command');
    expect(SupervisorOptionsParser.handleFor('make', '0a1b2c3d')).toBe('make-0a1b2c3d');
    const long = SupervisorOptionsParser.handleFor('x'.repeat(300));
    expect(long).toMatch(/^x{119}-[0-9a-f]{8}$/);
    expect(Buffer.byteLength(long)).toBe(128);
    const handles = new Set(Array.from({ length: 50 }, () => parse([...REQUIRED, '--', '/bin/true']).handle));
    expect(handles.size).toBe(50);
    for (const handle of handles) expect(handle).toMatch(/^true-[0-9a-f]{8}$/);
  });

  it('--token works but warns that other local users see it; PN_TOKEN and --token-file do not warn', () => {
    expect(parseRun(REQUIRED.concat('--', 'make')).warnings).toEqual([expect.stringMatching(/--token is visible to other local users/)]);
    const env = { PN_TOKEN: 'env-token' };
    const withoutToken = [...REQUIRED.slice(0, 2), ...REQUIRED.slice(4), '--', 'make'];
    expect(parseRun(withoutToken, env)).toMatchObject({ warnings: [], options: { token: 'env-token' } });
    const dir = mkdtempSync(join(tmpdir(), 'pn-token-'));
    try {
      // Readable by the user only: a file others may read adds a warning (below).
      writeFileSync(join(dir, 'token'), 'file-token\n', { mode: 0o600 });
      writeFileSync(join(dir, 'crlf'), 'crlf-token\r\n', { mode: 0o600 });
      writeFileSync(join(dir, 'empty'), '\n', { mode: 0o600 });
      writeFileSync(join(dir, 'two-lines'), 'a\nb\n', { mode: 0o600 });
      const withFile = (file: string) => parseRun([...withoutToken.slice(0, -2), '--token-file', join(dir, file), '--', 'make'], env);
      // The file wins over the environment.
      expect(withFile('token')).toMatchObject({ warnings: [], options: { token: 'file-token' } });
      expect(withFile('crlf').options.token).toBe('crlf-token');
      expect(() => withFile('empty')).toThrow(/must hold the token on one line/);
      expect(() => withFile('two-lines')).toThrow(/must hold the token on one line/);
      expect(() => withFile('missing')).toThrow(/cannot read --token-file .*missing: ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a token is 1 to 4096 printable ASCII characters, from any source; a token file others may read warns', () => {
    const withoutToken = [...REQUIRED.slice(0, 2), ...REQUIRED.slice(4), '--', 'make'];
    const longest = '~'.repeat(MAX_TOKEN_BYTES);
    expect(MAX_TOKEN_BYTES).toBe(4096);
    expect(parse(withoutToken, { PN_TOKEN: longest }).token).toBe(longest);
    const refusal = /^the token in (PN_TOKEN|--token|--token-file .*) must be 1 to 4096 printable ASCII characters/;
    for (const bad of [`${longest}a`, 'a b', 'a\u0000b', 'tok\u001b[2J', 'é']) {
      expect(usageError(withoutToken, { PN_TOKEN: bad })).toMatch(refusal);
      expect(usageError([...REQUIRED.slice(0, 2), '--token', bad, ...REQUIRED.slice(4), '--', 'make'])).toMatch(refusal);
      // Never echoed.
      expect(usageError(withoutToken, { PN_TOKEN: bad })).not.toContain(bad);
    }
    const dir = mkdtempSync(join(tmpdir(), 'pn-token-'));
    try {
      const withFile = (content: string | Buffer, mode = 0o600) => {
        const file = join(dir, 'token');
        rmSync(file, { force: true });
        writeFileSync(file, content, { mode });
        return parseRun([...withoutToken.slice(0, -2), '--token-file', file, '--', 'make']);
      };
      expect(withFile(`${longest}\n`).options.token).toBe(longest);
      expect(() => withFile(`${longest}a\n`)).toThrow(refusal);
      expect(() => withFile(Buffer.alloc(1024 * 1024, 'a'))).toThrow(refusal);
      expect(() => withFile(Buffer.from([0x61, 0xff, 0x00, 0x62]))).toThrow(refusal);
      expect(withFile('file-token\n', 0o640).warnings).toEqual([
        expect.stringMatching(/^warning: --token-file .* is readable by group or others \(mode 640\)/),
      ]);
      expect(withFile('file-token\n', 0o604).warnings).toHaveLength(1);
      expect(withFile('file-token\n', 0o600).warnings).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('status and forget: their own operands, the state directory from the option, the environment or the default', () => {
    expect(SupervisorOptionsParser.parse(['status'], {})).toEqual({ kind: 'status', stateDir: './.pn-supervisor' });
    expect(SupervisorOptionsParser.parse(['status'], { PN_SUPERVISOR_STATE_DIR: '/srv/pn' })).toEqual({
      kind: 'status',
      stateDir: '/srv/pn',
    });
    expect(SupervisorOptionsParser.parse(['status', '--state-dir', '/x'], {})).toEqual({ kind: 'status', stateDir: '/x' });
    expect(SupervisorOptionsParser.parse(['forget', SESSION.toUpperCase(), '--state-dir=/x'], {})).toEqual({
      kind: 'forget',
      stateDir: '/x',
      commandId: SESSION,
    });
    expect(usageError(['status', 'extra'])).toContain('status takes no arguments');
    expect(usageError(['status', '--server', 'http://x'])).toContain('unknown option --server');
    expect(usageError(['forget'])).toContain('forget needs exactly one COMMAND_ID');
    expect(usageError(['forget', 'abc'])).toContain('forget COMMAND_ID must be a UUID');
  });

  it.each([
    [[], 'no command given'],
    [['--', 'make'], 'missing --server (or PN_SERVER_URL)'],
    [['--server', 'http://x', '--', 'make'], 'missing the token (PN_TOKEN or --token-file)'],
    [[...REQUIRED, '--token-file', '/nonexistent', '--', 'make'], 'give --token or --token-file, not both'],
    [[...REQUIRED, '--command-id', 'not-a-uuid', '--', 'make'], '--command-id must be a UUID'],
    [[...REQUIRED, '--command-id', '00000000-0000-0000-0000-000000000000', '--', 'make'], '--command-id must be a UUID'],
    [[...REQUIRED, '--deadline', '0', '--', 'make'], '--deadline must be a positive number of seconds'],
    [[...REQUIRED, '--shutdown-wait', 'x', '--', 'make'], '--shutdown-wait must be a positive number of seconds'],
    [[...REQUIRED, '--quiet=yes', '--', 'make'], '--quiet takes no value'],
    [['--server', 'http://x', '--token', 't', '--', 'make'], 'missing --session (or PN_SESSION_ID)'],
    [['--server', 'http://x', '--token', 't', '--session', SESSION, '--', 'make'], 'missing --loop (or PN_LOOP_ID)'],
    [[...REQUIRED, '--bogus', '--', 'make'], 'unknown option --bogus'],
    [[...REQUIRED, '--timeout'], '--timeout needs a value'],
    [['--server', 'ftp://x', ...REQUIRED.slice(2), '--', 'make'], '--server must be an http(s) URL'],
    [['--server', 'not a url', ...REQUIRED.slice(2), '--', 'make'], '--server must be an http(s) URL'],
    [[...REQUIRED.slice(0, 4), '--session', 'abc', ...REQUIRED.slice(6), '--', 'make'], '--session must be a UUID'],
    [[...REQUIRED.slice(0, 6), '--loop', '00000000-0000-0000-0000-000000000000', '--', 'make'], '--loop must be a UUID'],
    [[...REQUIRED, '--handle', 'has space', '--', 'make'], '--handle must be 1 to 128 characters'],
    [[...REQUIRED, '--handle', 'x'.repeat(129), '--', 'make'], '--handle must be 1 to 128 characters'],
    [[...REQUIRED, '--timeout', '0', '--', 'make'], '--timeout must be a positive number'],
    [[...REQUIRED, '--timeout', '-1', '--', 'make'], '--timeout must be a positive number'],
    [[...REQUIRED, '--timeout', '1s', '--', 'make'], '--timeout must be a positive number'],
    [[...REQUIRED, '--output-limit', '1e3', '--', 'make'], '--output-limit must be a whole number'],
  ])('%j is refused: %s', (argv, message) => {
    expect(usageError(argv)).toContain(message);
  });

  it('--help wins over anything else', () => {
    expect(SupervisorOptionsParser.parse(['--help'], {})).toEqual({ kind: 'help' });
  });

  it('reads the edges of the command line as it always did', () => {
    expect(usageError([...REQUIRED, '-x=1', '--', 'make'])).toBe('unknown option -x');
    expect(usageError([...REQUIRED, '--=x', '--', 'make'])).toBe('unknown option --');
    expect(usageError([...REQUIRED, '--help=1', '--', 'make'])).toBe('unknown option --help');
    expect(usageError([...REQUIRED, '-quiet', '--', 'make'])).toBe('unknown option -quiet');
    expect(SupervisorOptionsParser.parse([...REQUIRED, '-h', '--bogus'], {})).toEqual({ kind: 'help' });
    expect(SupervisorOptionsParser.parse(['status', 'x', '--help'], {})).toEqual({ kind: 'help' });
    expect(SupervisorOptionsParser.parse([...REQUIRED, '--', 'make', '--help'], {})).toMatchObject({ kind: 'run' });
    expect(usageError(['status', '--', 'extra'])).toBe('status takes no arguments, got "extra"');
    expect(usageError(['forget', '--state-dir'])).toBe('--state-dir needs a value');
    // An empty value is a value: it is missing only where a setting must not be empty.
    expect(usageError(['--server=', ...REQUIRED.slice(2), '--', 'make'], { PN_SERVER_URL: 'http://x' })).toBe(
      'missing --server (or PN_SERVER_URL)',
    );
    expect(parse([...REQUIRED, '--state-dir', '', '--', 'make'], { PN_SUPERVISOR_STATE_DIR: '/srv/pn' }).stateDir).toBe('/srv/pn');
    expect(SupervisorOptionsParser.parse(['status', '--state-dir='], {})).toEqual({ kind: 'status', stateDir: './.pn-supervisor' });
    expect(usageError([...REQUIRED, '--', ''])).toBe('no command given (put it after --)');
    expect(parse([...REQUIRED, '-', 'x'])).toMatchObject({ command: '-', args: ['x'] });
    expect(parse([...REQUIRED, '--server', 'https://second', '--', 'make']).server).toBe('https://second');
    expect(parse([...REQUIRED, '--state-dir', '--', '--', 'make'])).toMatchObject({ stateDir: '--', command: 'make', args: [] });
    // The first setting that is wrong, in the order of the options above, is the one told.
    expect(usageError(['--server', 'ftp://x', '--token', 'a b', '--session', 'bad', '--', 'make'])).toMatch(/^--server must/);
    expect(usageError([...REQUIRED.slice(0, 4), '--session', 'bad', '--loop', 'bad', '--timeout', '0', '--', 'make'])).toMatch(
      /^--session must/,
    );
    expect(usageError([...REQUIRED, '--handle', 'a b', '--command-id', 'x', '--', 'make'])).toMatch(/^--handle must/);
    expect(usageError([...REQUIRED, '--pass-env', 'PATH', '--timeout', '0', '--', 'make'])).toMatch(/^--pass-env takes/);
    expect(usageError([...REQUIRED, '--timeout', '0', '--output-limit', 'x', '--', 'make'])).toMatch(/^--timeout must/);
    expect(usageError([...REQUIRED, '--output-limit', 'x', '--deadline', '0', '--', 'make'])).toMatch(/^--output-limit must/);
    expect(usageError([...REQUIRED, '--deadline', '0', '--shutdown-wait', '0', '--', 'make'])).toMatch(/^--deadline must/);
    expect(usageError([...REQUIRED, '--shutdown-wait', '0', '--start-wait', '0', '--', 'make'])).toMatch(/^--shutdown-wait must/);
    expect(usageError([...REQUIRED, '--no-check', '--start-wait', '0', '--', 'make'])).toMatch(/^--start-wait must/);
    expect(
      Object.keys(parse([...REQUIRED, '--timeout', '1', '--output-limit', '2', '--deadline', '3', '--command-id', SESSION, '--', 'make'])),
    ).toEqual([
      'server',
      'token',
      'sessionId',
      'loopId',
      'handle',
      'commandId',
      'stateDir',
      'commandEnv',
      'quiet',
      'ids',
      'command',
      'args',
      'timeoutMs',
      'outputLimit',
      'deadlineMs',
      'shutdownWaitMs',
      'check',
      'startWaitMs',
    ]);
  });
});
