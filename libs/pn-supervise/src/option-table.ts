/*
 * How a table of options is read from a command line, for both bins (issue 49): pn-supervise's
 * run and subcommands, and pn's connection options and subcommands. What differs between them
 * is said by rules, not by a scanner of each.
 */

/** What an option takes: nothing (`flag`), a value (the last one counts), or values (every one kept, in order). */
export type OptionKind = 'flag' | 'value' | 'values';

/** The options of a table by their whole name (`--server`). */
export type OptionKinds = Readonly<Record<string, OptionKind>>;

/** How a command line is read besides its options. */
export interface OptionRules {
  /** An argument that is no option: an operand, and scanning goes on (`collect`), or where options end (`stop`). */
  readonly operands: 'collect' | 'stop';
  /** An option the table does not know: refused, or kept among the operands as it was given (`keep`). */
  readonly unknown: 'refuse' | 'keep';
  /** Whether an empty value (`--name=`) is one; when not, the option "needs a value". */
  readonly emptyValues: boolean;
  /** Arguments that ask for help: scanning stops there. */
  readonly help?: readonly string[];
  /** The message refusing an unknown option: `name` without its `=value`, `arg` as given (default: `unknown option NAME`). */
  readonly unknownMessage?: (name: string, arg: string) => string;
  /** The error a refusal throws. */
  readonly refuse: (message: string) => Error;
}

/** A command line, read. */
export interface ScannedOptions {
  /** The last value of each `value` or `values` option given. */
  readonly values: ReadonlyMap<string, string>;
  /** Every value of each `values` option given. */
  readonly repeated: ReadonlyMap<string, readonly string[]>;
  readonly flags: ReadonlySet<string>;
  /** The operands, then every argument after the options' end (`--`, or the first operand when operands stop). */
  readonly operands: readonly string[];
  /** An argument asked for help (what was read up to it is all there is). */
  readonly help: boolean;
}

interface Scanning {
  readonly values: Map<string, string>;
  readonly repeated: Map<string, string[]>;
  readonly flags: Set<string>;
  readonly operands: string[];
  help: boolean;
}

/** A table of options and the rules it is read by; {@link scan} reads a command line with it. */
export class OptionTable {
  constructor(
    private readonly options: OptionKinds,
    private readonly rules: OptionRules,
  ) {}

  /** `--name=value` as its name and value; any other argument as itself. */
  static split(arg: string): [name: string, inline: string | undefined] {
    const equals = arg.indexOf('=');
    return arg.startsWith('--') && equals > 0 ? [arg.slice(0, equals), arg.slice(equals + 1)] : [arg, undefined];
  }

  /**
   * A duration option's value (`--timeout 1.5`): whole seconds or decimals, positive, at most
   * 2,000,000 (23 days), in milliseconds; anything else is refused with `refuse`. Both bins take
   * durations so.
   */
  static seconds(option: string, value: string, refuse: (message: string) => Error): number {
    const seconds = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0) || seconds > 2_000_000) {
      throw refuse(`${option} must be a positive number of seconds, got "${value}"`);
    }
    return Math.round(seconds * 1000);
  }

  /** Reads `argv`; throws the rules' error on an unknown option, a missing value or a flag given one. */
  scan(argv: readonly string[]): ScannedOptions {
    const scanning: Scanning = { values: new Map(), repeated: new Map(), flags: new Set(), operands: [], help: false };
    let index = 0;
    while (index < argv.length && !scanning.help) {
      const next = this.step(argv, index, scanning);
      if (next === undefined) break;
      index = next;
    }
    // `--` itself ends the options and is not an operand.
    if (argv[index] === '--') index += 1;
    if (!scanning.help) scanning.operands.push(...argv.slice(index));
    return scanning;
  }

  /** Reads the argument at `index`: the index of the next one, or `undefined` where the options end. */
  private step(argv: readonly string[], index: number, scanning: Scanning): number | undefined {
    const arg = argv[index]!;
    if (arg === '--') return undefined;
    const [name, inline] = OptionTable.split(arg);
    const kind = Object.hasOwn(this.options, name) ? this.options[name] : undefined;
    if (this.isOperand(arg, kind)) return this.operand(arg, scanning, index);
    if (this.rules.help?.includes(arg)) {
      scanning.help = true;
      return index + 1;
    }
    if (kind === undefined) throw this.unknownOption(name, arg);
    if (kind === 'flag') return this.flag(name, inline, scanning, index);
    return this.value(kind, name, inline, argv, index, scanning);
  }

  /** No option (`-` alone is none: it names stdin), or one the table does not know and keeps. */
  private isOperand(arg: string, kind: OptionKind | undefined): boolean {
    return !arg.startsWith('-') || arg === '-' || (kind === undefined && this.rules.unknown === 'keep');
  }

  private operand(arg: string, scanning: Scanning, index: number): number | undefined {
    if (this.rules.operands === 'stop') return undefined;
    scanning.operands.push(arg);
    return index + 1;
  }

  private flag(name: string, inline: string | undefined, scanning: Scanning, index: number): number {
    if (inline !== undefined) throw this.rules.refuse(`${name} takes no value`);
    scanning.flags.add(name);
    return index + 1;
  }

  /** Takes the option's value: after its `=`, else the next argument; the index after them. */
  private value(
    kind: OptionKind,
    name: string,
    inline: string | undefined,
    argv: readonly string[],
    index: number,
    scanning: Scanning,
  ): number {
    const value = inline ?? argv[index + 1];
    if (value === undefined || (value === '' && !this.rules.emptyValues)) throw this.rules.refuse(`${name} needs a value`);
    scanning.values.set(name, value);
    if (kind === 'values') scanning.repeated.set(name, [...(scanning.repeated.get(name) ?? []), value]);
    return inline === undefined ? index + 2 : index + 1;
  }

  private unknownOption(name: string, arg: string): Error {
    return this.rules.refuse(this.rules.unknownMessage?.(name, arg) ?? `unknown option ${name}`);
  }
}
