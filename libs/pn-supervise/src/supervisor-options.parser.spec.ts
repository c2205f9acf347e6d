import { SupervisorOptionsParser } from './supervisor-options.parser.js';
import { UsageError } from './usage.error.js';

const SESSION = '0196f3c0-7b1a-7c3e-8f00-000000000001';
const LOOP = '0196f3c0-7b1a-7c3e-8f00-000000000002';
const REQUIRED = ['--server', 'http://127.0.0.1:3000', '--token', 't0k', '--session', SESSION, '--loop', LOOP];

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const parsed = SupervisorOptionsParser.parse(argv, env);
  if (parsed.help) throw new Error('unexpected help');
  return parsed.options;
};
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
      '--quiet',
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
      quiet: true,
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
    });
    expect(parse(['--token', 'flag', '--', 'make'], { ...env, PN_SUPERVISOR_STATE_DIR: '/srv/pn' })).toMatchObject({
      token: 'flag',
      stateDir: '/srv/pn',
    });
  });

  it('takes the command after --, or at the first argument that is not an option', () => {
    expect(parse([...REQUIRED, 'ls', '-l', '--', 'x'])).toMatchObject({ command: 'ls', args: ['-l', '--', 'x'] });
    expect(parse([...REQUIRED, '--', '--weird-name'])).toMatchObject({ command: '--weird-name', args: [] });
  });

  it('derives the handle from the command base name, made valid', () => {
    expect(SupervisorOptionsParser.handleFor('make')).toBe('make');
    expect(SupervisorOptionsParser.handleFor('/usr/local/bin/python3.12')).toBe('python3-12');
    expect(SupervisorOptionsParser.handleFor('./run tests.sh')).toBe('run-tests-sh');
    expect(SupervisorOptionsParser.handleFor('build/')).toBe('build');
    expect(SupervisorOptionsParser.handleFor('日本')).toBe('--');
    expect(SupervisorOptionsParser.handleFor('/')).toBe('command');
    expect(SupervisorOptionsParser.handleFor('x'.repeat(300))).toBe('x'.repeat(128));
    expect(parse([...REQUIRED, '--', '/bin/true'])).toMatchObject({ handle: 'true' });
  });

  it.each([
    [[], 'no command given'],
    [['--', 'make'], 'missing --server (or PN_SERVER_URL)'],
    [['--server', 'http://x', '--', 'make'], 'missing --token (or PN_TOKEN)'],
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
    expect(SupervisorOptionsParser.parse(['--help'], {})).toEqual({ help: true });
  });
});
