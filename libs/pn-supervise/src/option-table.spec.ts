import { OptionTable, type OptionRules } from './option-table.js';

const RULES: OptionRules = {
  operands: 'collect',
  unknown: 'refuse',
  emptyValues: false,
  refuse: (message) => new RangeError(message),
};
const OPTIONS = { '--name': 'value', '--tag': 'values', '--quiet': 'flag' } as const;
const scan = (argv: string[], rules: Partial<OptionRules> = {}) => new OptionTable(OPTIONS, { ...RULES, ...rules }).scan(argv);
const refusal = (argv: string[], rules: Partial<OptionRules> = {}): string => {
  try {
    scan(argv, rules);
  } catch (error) {
    expect(error).toBeInstanceOf(RangeError);
    return (error as Error).message;
  }
  throw new Error('no refusal');
};

describe('OptionTable', () => {
  it('reads values (the last one counts), every value of a repeatable option, flags and operands', () => {
    const scanned = scan(['a', '--name', 'x', '--tag=1', '-', '--quiet', '--name=y', '--tag', '2', 'b']);
    expect(scanned.values).toEqual(
      new Map([
        ['--name', 'y'],
        ['--tag', '2'],
      ]),
    );
    expect(scanned.repeated).toEqual(new Map([['--tag', ['1', '2']]]));
    expect(scanned.flags).toEqual(new Set(['--quiet']));
    expect(scanned.operands).toEqual(['a', '-', 'b']);
    expect(scanned.help).toBe(false);
  });

  it('ends the options at --, or at the first operand when operands stop them', () => {
    expect(scan(['a', '--', '--quiet', 'b']).operands).toEqual(['a', '--quiet', 'b']);
    expect(scan(['--quiet', 'cmd', '--name', 'x'], { operands: 'stop' })).toMatchObject({ operands: ['cmd', '--name', 'x'] });
    expect(scan(['--name', '--', '--', 'x'], { operands: 'stop' })).toMatchObject({ values: new Map([['--name', '--']]), operands: ['x'] });
  });

  it('refuses an unknown option, a flag given a value, and a missing (or, by the rules, empty) value', () => {
    expect(refusal(['--other=1'])).toBe('unknown option --other');
    expect(refusal(['-x=1'], { unknownMessage: (name, arg) => `${name} | ${arg}` })).toBe('-x=1 | -x=1');
    expect(refusal(['--quiet=yes'])).toBe('--quiet takes no value');
    expect(refusal(['--name'])).toBe('--name needs a value');
    expect(refusal(['--name='])).toBe('--name needs a value');
    expect(scan(['--name='], { emptyValues: true }).values.get('--name')).toBe('');
  });

  it('keeps what it does not know, as given, when told to', () => {
    expect(scan(['run', '--other=1', '--name', 'x', '-v'], { unknown: 'keep' }).operands).toEqual(['run', '--other=1', '-v']);
  });

  it('stops at a help argument', () => {
    expect(scan(['--quiet', '-h', '--bogus'], { help: ['-h'] })).toMatchObject({ help: true, operands: [] });
  });

  it('reads a duration in milliseconds, refusing anything but a positive number of seconds', () => {
    const refuse = (message: string) => new RangeError(message);
    expect(OptionTable.seconds('--wait', '1.5', refuse)).toBe(1500);
    expect(OptionTable.seconds('--wait', '2000000', refuse)).toBe(2_000_000_000);
    for (const bad of ['0', '-1', '1s', '1e3', '.5', '2000001', '']) {
      expect(() => OptionTable.seconds('--wait', bad, refuse)).toThrow(`--wait must be a positive number of seconds, got "${bad}"`);
    }
  });
});
