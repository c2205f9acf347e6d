import * as contract from 'process-notifications-contract';
import * as client from 'process-notifications-client';
import * as library from 'nestjs-process-notifications';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REFUSAL_CODES } from '../../src/refusals/refusal-log.service.js';
import { PROBLEM_TYPES } from '../../src/http/problem-types.js';
import { REPO } from '../support/doc-commands.js';

const CONTRACT_DIR = 'libs/process-notifications-contract';
// Every value the contract package exports: its closed sets, bounds, header names and guards.
const CONTRACT_VALUES: [string, unknown][] = Object.entries(contract);

// Where a copy of a closed set could hide: the sources and tests of every TypeScript package, the
// server, the apps and the tests (the Python client is held apart, python-client-vocabulary.int-spec.ts).
const TREES = ['libs/process-notifications/src', 'libs/process-notifications-client/src', 'libs/pn-supervise/src', 'src', 'apps', 'test'];
function* sources(directory: string): Generator<string> {
  for (const entry of readdirSync(join(REPO, directory), { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'dist') yield* sources(path);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

// The contract package defines each closed set once; the library, the client and the server
// export and use those very objects, and nothing spells a set out again.
describe('the contract package, the one definition of the wire vocabulary', () => {
  it('has no dependencies: none declared, and its sources import only each other', () => {
    const manifest = JSON.parse(readFileSync(join(REPO, CONTRACT_DIR, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(manifest).filter((key) => /dependencies/i.test(key))).toEqual([]);
    const imports = [...sources(join(CONTRACT_DIR, 'src'))]
      .filter((path) => !path.endsWith('.spec.ts'))
      .flatMap((path) => [...readFileSync(join(REPO, path), 'utf8').matchAll(/\bfrom '([^']+)'/g)].map((match) => match[1]!));
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((specifier) => !specifier.startsWith('./'))).toEqual([]);
  });

  it('is what the client exports: every value of it, the very same objects', () => {
    expect(CONTRACT_VALUES.length).toBeGreaterThan(20);
    for (const [name, value] of CONTRACT_VALUES) expect([name, (client as Record<string, unknown>)[name] === value]).toEqual([name, true]);
  });

  it('is what the library exports under the names it always had, the very same objects', () => {
    const shared = CONTRACT_VALUES.filter(([name]) => Object.hasOwn(library, name));
    expect(shared.map(([name]) => name).sort()).toEqual(
      [
        'DISPOSITIONS',
        'JOURNAL_KINDS',
        'LIFECYCLE_DIAGNOSTIC_MAX_BYTES',
        'LIFECYCLE_KINDS',
        'LOOP_ENGINES',
        'LOOP_FILTERS',
        'LOOP_STATES',
        'MAX_CONSUME_BATCH',
        'OUTCOME_KINDS',
        'PROCESS_HANDLE_PATTERN',
        'PROCESS_STATES',
        'SESSION_STATES',
        'STOP_CAUSES',
        'STOP_REASONS',
        'SUCCESS_DISPOSITIONS',
        'TERMINAL_PAIRS',
        'TERMINAL_REASONS',
        'isProcessState',
        'isTerminalPair',
        'isTerminalReason',
      ].sort(),
    );
    for (const [name, value] of shared) expect([name, (library as Record<string, unknown>)[name] === value]).toEqual([name, true]);
  });

  it("gives a status to exactly the contract's problem codes, and lists refusals with its codes", () => {
    expect(Object.keys(PROBLEM_TYPES)).toEqual([...contract.PROBLEM_CODES]);
    expect(library.ERROR_CODES.filter((code) => !(contract.PROBLEM_CODES as readonly string[]).includes(code))).toEqual([]);
    expect(REFUSAL_CODES).toBe(contract.REFUSAL_CODES);
  });

  it('is spelled out nowhere else: no other source lists all the members of one of its sets', () => {
    const sets = CONTRACT_VALUES.filter(
      (entry): entry is [string, readonly string[]] =>
        Array.isArray(entry[1]) && entry[1].length > 1 && entry[1].every((v) => typeof v === 'string'),
    );
    // All its members in order and nothing else, quoted, as an array (`['a', 'b']`) or a union
    // (`'a' | 'b'`); a longer list or union that holds them is something else (the supervisor's record keys).
    const copies = sets.map(([name, members]) => {
      const quoted = members.map((member) => `['"]${member}['"]`);
      const array = `\\[\\s*${quoted.join('\\s*,\\s*')}\\s*,?\\s*\\]`;
      const union = `(?<![|]\\s*)${quoted.join('\\s*\\|\\s*')}(?!\\s*[|])`;
      return [name, new RegExp(`${array}|${union}`)] as const;
    });
    const found = TREES.flatMap((tree) => [...sources(tree)])
      .filter((path) => !path.startsWith(CONTRACT_DIR))
      .flatMap((path) => {
        const text = readFileSync(join(REPO, path), 'utf8');
        return copies.filter(([, copy]) => copy.test(text)).map(([name]) => `${path}: ${name}`);
      });
    expect(found).toEqual([]);
  });
});
