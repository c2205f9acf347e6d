import { PnOptionsParser } from './pn-options.parser.js';
import { PnError } from './pn.error.js';

const ID = '5d1f6c2e-8a4b-4f0e-9c3d-2b7a1e6f4c55';

const usage = (argv: string[]): string => {
  try {
    PnOptionsParser.parse(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(PnError);
    expect((error as PnError).status).toBe(2);
    return (error as PnError).message;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
};

describe('PnOptionsParser', () => {
  it('takes the connection options anywhere before the command’s --, and keeps them out of what pn-supervise gets', () => {
    const parsed = PnOptionsParser.parse([
      '--server',
      'http://h',
      'run',
      '--token=t0k',
      '--timeout',
      '5',
      '--loop',
      ID,
      '--',
      'make',
      '--token',
      'x',
    ]);
    expect(parsed.connection).toEqual({ server: 'http://h', token: 't0k', loopId: ID });
    expect(parsed.command).toEqual({ kind: 'run', supervisorArgs: ['--timeout', '5'], argv: ['make', '--token', 'x'] });
  });

  it('reads pn run’s --state-dir, where the log goes', () => {
    expect(PnOptionsParser.parse(['run', '--state-dir', '/s', '--', 'true']).command).toMatchObject({ stateDir: '/s' });
  });

  it('reads wait’s operand and options', () => {
    expect(PnOptionsParser.parse(['wait', ID.toUpperCase(), '--timeout', '1.5', '--json']).command).toEqual({
      kind: 'wait',
      commandId: ID,
      timeoutMs: 1500,
      json: true,
      outcome: true,
    });
    expect(PnOptionsParser.parse(['wait', '--no-outcome', ID]).command).toMatchObject({ outcome: false });
  });

  it.each([
    [[], /no command/],
    [['frobnicate'], /unknown command/],
    [['run', 'make'], /after "--"/],
    [['run', '--command-id', ID, '--', 'make'], /sets --command-id itself/],
    [['run', '--no-ids', '--', 'make'], /sets --no-ids itself/],
    [['wait'], /exactly one COMMAND_ID/],
    [['wait', 'nope'], /must be a UUID/],
    [['wait', ID, '--timeout', '-1'], /positive number of seconds/],
    [['wait', ID, '--bogus'], /unknown option --bogus/],
    [['consume'], /one or more/],
    [['watch', '--after', 'x'], /journal sequence/],
    [['loop', 'open', '--engine', 'other'], /--engine must be one of/],
    [['pending', '--', 'x'], /takes no "--"/],
    [['--server'], /needs a value/],
  ])('%j is a usage error', (argv, message) => {
    expect(usage(argv)).toMatch(message);
  });

  it('reads the edges of the command line as it always did', () => {
    expect(usage(['wait', ID, '-x=1'])).toBe('unknown option -x=1 for pn wait');
    expect(usage(['wait', ID, '--bogus=1'])).toBe('unknown option --bogus for pn wait');
    expect(usage(['wait', ID, '--json=1'])).toBe('--json takes no value');
    expect(usage(['wait', ID, '--timeout='])).toBe('--timeout needs a value');
    expect(usage(['wait', ID, '--timeout'])).toBe('--timeout needs a value');
    expect(usage(['--server=', 'pending'])).toBe('--server needs a value');
    expect(usage(['pending', '--token', ''])).toBe('--token needs a value');
    expect(usage(['loop', 'open', '--engine='])).toBe('--engine needs a value');
    expect(usage(['wait', '-'])).toBe('COMMAND_ID must be a UUID, got "-"');
    expect(usage(['wait', ID, ID])).toBe(`pn wait takes exactly one COMMAND_ID, got "${ID} ${ID}"`);
    expect(usage(['pending', 'x'])).toBe('pn pending takes no arguments, got "x"');
    expect(usage(['run', '--state-dir', '--command-id', '--', 'make'])).toBe('pn run sets --command-id itself');
    expect(usage(['run', '--state-dir=', '--', 'make'])).toBe('--state-dir needs a value');
    expect(PnOptionsParser.parse(['pending', '--session', '--json', '--json']).connection).toEqual({ sessionId: '--json' });
    expect(PnOptionsParser.parse(['--loop=a', 'consume', ID, '--loop', 'b', ID.toUpperCase()])).toEqual({
      connection: { loopId: 'b' },
      command: { kind: 'consume', commandIds: [ID, ID] },
    });
    expect(PnOptionsParser.parse(['wait', '--help', '--bogus']).command).toEqual({ kind: 'help' });
    expect(PnOptionsParser.parse(['--', 'x']).command).toEqual({ kind: 'help' });
    expect(PnOptionsParser.parse(['session', 'open', '--json']).command).toEqual({ kind: 'session-open', json: true });
    expect(PnOptionsParser.parse(['loop', 'open', '--engine', 'foreign']).command).toEqual({
      kind: 'loop-open',
      json: false,
      engine: 'foreign',
    });
    expect(PnOptionsParser.parse(['watch', '--after=7']).command).toEqual({ kind: 'watch', after: 7 });
    expect(PnOptionsParser.parse(['mcp']).command).toEqual({ kind: 'mcp' });
    expect(usage(['mcp', '--json'])).toBe('unknown option --json for pn mcp');
    expect(usage(['session', 'close'])).toBe('unknown command "pn session close" (did you mean pn session open?)');
  });
});
