import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The supported Node majors (docs/development.md#node-versions) are stated in several places that
// nothing else ties together: `engines`, the README, what CI runs on them (.ci/run), the image's
// base (Dockerfile) and the headers better-sqlite3 is compiled against (scripts/with-node.sh).
// Held in agreement here, and `engines` against every locked dependency's: `npm ci` on a supported
// major prints no EBADENGINE.

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const read = (path: string): string => readFileSync(join(repo, path), 'utf8');

const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
const lock = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; os?: string[]; cpu?: string[] }>;
};

type Version = [number, number, number];
const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The node-semver range grammar the lockfile's `engines.node` values use, as intervals. */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((set) => {
    const comparators = set
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/);
    return comparators.every((comparator) => {
      if (comparator === '*' || comparator === '') return true;
      const match = /^(>=|<=|>|<|=|\^|~)?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(comparator);
      if (!match) throw new Error(`a range this test does not read: ${range}`);
      const [, op = '', major, minor, patch] = match;
      const number = (part: string | undefined): number | undefined => (part === undefined || /[x*]/.test(part) ? undefined : Number(part));
      const parts = [Number(major), number(minor), number(patch)] as const;
      const low: Version = [parts[0], parts[1] ?? 0, parts[2] ?? 0];
      // The first version past a partial one (`22` → 23.0.0, `22.13` → 22.14.0).
      const past: Version = parts[1] === undefined ? [parts[0] + 1, 0, 0] : parts[2] === undefined ? [parts[0], parts[1] + 1, 0] : [...low];
      const partial = parts[1] === undefined || parts[2] === undefined;
      switch (op) {
        case '>=':
          return compare(version, low) >= 0;
        case '>':
          return partial ? compare(version, past) >= 0 : compare(version, low) > 0;
        case '<':
          return compare(version, low) < 0;
        case '<=':
          return partial ? compare(version, past) < 0 : compare(version, low) <= 0;
        case '^':
          return compare(version, low) >= 0 && compare(version, low[0] > 0 ? [low[0] + 1, 0, 0] : [0, low[1] + 1, 0]) < 0;
        case '~':
          return compare(version, low) >= 0 && compare(version, [low[0], low[1] + 1, 0]) < 0;
        default:
          return partial ? compare(version, low) >= 0 && compare(version, past) < 0 : compare(version, low) === 0;
      }
    });
  });
}

/** `engines` as one `^MAJOR.MINOR.PATCH` per major: the majors and the lowest release of each. */
const supported = engines.split('||').map((part) => {
  const match = /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(part);
  if (!match) throw new Error(`engines is not one ^MAJOR.MINOR.PATCH per major: ${engines}`);
  return { major: Number(match[1]), floor: [Number(match[1]), Number(match[2]), Number(match[3])] as Version };
});
const majors = supported.map(({ major }) => major);

/** A shell script's commands: no comments, continuation lines joined. */
const commands = (text: string): string[] =>
  text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

describe('the supported Node majors', () => {
  it('engines names the maintained even majors 22, 24 and 26, each from a release on', () => {
    expect(majors).toEqual([22, 24, 26]);
    expect(satisfies([20, 20, 2], engines)).toBe(false);
    // What npm ci reads is the lockfile's copy.
    expect((lock.packages[''] as { engines: { node: string } }).engines.node).toBe(engines);
  });

  it('no locked dependency refuses a supported major (npm ci prints no EBADENGINE on it)', () => {
    const refusals: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      // Packages for another platform are not installed here, nor checked by npm.
      if (path === '' || range === undefined || entry.os?.includes('linux') === false || entry.cpu?.includes('x64') === false) continue;
      for (const { major, floor } of supported) {
        for (const version of [floor, [major, 99, 99] as Version]) {
          if (!satisfies(version, range)) refusals.push(`${path} (${range}) refuses ${version.join('.')}`);
        }
      }
    }
    expect(refusals).toEqual([]);
  });

  it('the range reader reads node-semver ranges as npm does', () => {
    expect(satisfies([22, 13, 0], '^20.19.0 || ^22.13.0 || >=24.11.0')).toBe(true);
    expect(satisfies([22, 12, 9], '^20.19.0 || ^22.13.0 || >=24.11.0')).toBe(false);
    expect(satisfies([24, 10, 0], '^20.19.0 || ^22.13.0 || >=24.11.0')).toBe(false);
    expect(satisfies([26, 1, 0], '20.x || 22.x || 23.x || 24.x || 25.x || 26.x')).toBe(true);
    expect(satisfies([27, 0, 0], '20.x || 22.x || 23.x || 24.x || 25.x || 26.x')).toBe(false);
    expect(satisfies([21, 0, 0], '18 || 20 || >=22')).toBe(false);
    expect(satisfies([20, 5, 0], '>=22.12.0 || >=20.19.0 <21.0.0')).toBe(false);
    expect(satisfies([14, 18, 0], '>=16 || 14 >=14.17')).toBe(true);
    expect(satisfies([12, 1, 0], '>= 12.*')).toBe(true);
    expect(satisfies([0, 7, 1], '>=0.6.11 <=0.7.0 || >=0.7.3')).toBe(false);
    expect(() => satisfies([22, 0, 0], 'lts')).toThrow(/does not read/);
  });

  it('the README states them', () => {
    const stated = /^Node: ((?:\d+, )*\d+) or (\d+), the maintained major versions/m.exec(read('README.md'));
    expect(stated).not.toBeNull();
    expect([...stated![1]!.split(', '), stated![2]!].map(Number)).toEqual(majors);
  });

  it('docs/development.md#node-versions quotes engines and names each of them', () => {
    const section = read('docs/development.md').split('\n## Node versions\n')[1]!.split('\n## ')[0]!;
    expect(section).toContain(`\`${engines}\``);
    for (const major of majors) expect(section).toContain(`Node ${major}`);
  });

  it('.ci/run runs the whole suite, lint and the install on one of them, and a smoke test on each other, the suite last', () => {
    const run = commands(read('.ci/run'));
    const suite = /^scripts\/with-node\.sh (\d+) npm test$/.exec(run.at(-1)!);
    expect(suite).not.toBeNull();
    const major = Number(suite![1]);
    expect(majors).toContain(major);
    expect(run).toEqual(expect.arrayContaining([`scripts/with-node.sh ${major} npm ci`, `scripts/with-node.sh ${major} npm run lint`]));
    // Nothing runs on the machine's own Node: every npm command goes through with-node.sh.
    expect(run.filter((line) => /(^|\s)(npm|node|npx) /.test(line) && !line.startsWith('scripts/with-node.sh '))).toEqual([]);
    const smokes = run.filter((line) => line.includes('scripts/node-major-smoke.sh'));
    expect(smokes).toHaveLength(1);
    const smoked = /scripts\/node-major-smoke\.sh((?: \d+)+)$/.exec(smokes[0]!)![1]!.trim().split(' ').map(Number);
    expect([...smoked, major].sort((a, b) => a - b)).toEqual(majors);
  });

  it('the Dockerfile builds and runs on one of them, better-sqlite3 compiled against the headers with-node.sh uses', () => {
    const dockerfile = read('Dockerfile');
    const bases = [...dockerfile.matchAll(/^FROM node:(\d+)-slim\b/gm)].map((match) => Number(match[1]));
    expect(bases.length).toBeGreaterThan(0);
    expect(new Set(bases).size).toBe(1);
    expect(majors).toContain(bases[0]);
    const pinned = Object.fromEntries(
      [...read('scripts/with-node.sh').matchAll(/^\s*(\d+)\) headers_version=([\d.]+) ;;$/gm)].map((match) => [match[1]!, match[2]!]),
    );
    const target = /^ENV npm_config_target=([\d.]+)$/m.exec(dockerfile)?.[1];
    expect(target).toBe(pinned[String(bases[0])]);
    // The pinned headers are of the same major (the same ABI).
    for (const [major, version] of Object.entries(pinned)) expect(version.split('.')[0]).toBe(major);
  });
});
