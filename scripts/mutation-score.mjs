// Adds up the parts written by scripts/mutate-parts.sh (reports/mutation/parts/<part>.json) into
// one mutation score, Stryker's definition: (killed + timeout) / (killed + timeout + survived +
// no coverage); ignored (static), compile and runtime errors are left out. A part's recheck
// (<part>.recheck.json: its survivors run again with every related test file) and its run after
// new tests (<part>.after.json: its undetected mutants run with the new tests) count for a
// mutant they detected.
//   node scripts/mutation-score.mjs [--dir DIR] [--before] [--survivors]   the score (--before:
//     without the runs after new tests), and every undetected mutant
//   node scripts/mutation-score.mjs --ranges PART   PART's undetected mutants as --mutate ranges
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const dirIndex = process.argv.indexOf('--dir');
const dir = dirIndex > 0 ? process.argv[dirIndex + 1] : 'reports/mutation/parts';
const STATUSES = ['Killed', 'Timeout', 'Survived', 'NoCoverage', 'Ignored', 'CompileError', 'RuntimeError', 'Pending'];
const undetected = (status) => status === 'Survived' || status === 'NoCoverage';
const keyOf = (path, m) =>
  `${relative(process.cwd(), path) || path}:${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.mutatorName} ${m.replacement}`;

/** A part's mutants by key, with the recheck's status where it ran them. */
function mutantsOf(part) {
  const mutants = new Map();
  const read = (file) => Object.entries(JSON.parse(readFileSync(join(dir, file), 'utf8')).files);
  for (const [path, { mutants: list }] of read(`${part}.json`)) for (const m of list) mutants.set(keyOf(path, m), { path, ...m });
  // <part>.after.json, and later runs with more new tests: <part>.after2.json, <part>.after3.json...
  const afters = readdirSync(dir).filter((file) => new RegExp(`^${part}\\.after\\d*\\.json$`).test(file));
  const extras = [`${part}.recheck.json`, ...(process.argv.includes('--before') ? [] : afters)];
  for (const extra of extras.filter((file) => existsSync(join(dir, file)))) {
    for (const [path, { mutants: list }] of read(extra)) {
      for (const m of list) {
        const key = keyOf(path, m);
        if (mutants.has(key) && (m.status === 'Killed' || m.status === 'Timeout')) mutants.set(key, { path, ...m, rechecked: true });
      }
    }
  }
  return [...mutants.values()];
}

const rangesIndex = process.argv.indexOf('--ranges');
if (rangesIndex > 0) {
  // Stryker's --mutate ranges: lines 1-based, columns 0-based (the report's are 1-based).
  const ranges = mutantsOf(process.argv[rangesIndex + 1])
    .filter((m) => undetected(m.status))
    .map((m) => {
      const { start, end } = m.location;
      return `${relative(process.cwd(), m.path) || m.path}:${start.line}:${start.column - 1}-${end.line}:${end.column - 1}`;
    });
  console.log([...new Set(ranges)].join(','));
  process.exit(0);
}

const listSurvivors = process.argv.includes('--survivors');
const total = Object.fromEntries(STATUSES.map((status) => [status, 0]));
const list = [];
const score = (c) => {
  const detected = c.Killed + c.Timeout;
  const valid = detected + c.Survived + c.NoCoverage;
  return valid === 0 ? 'n/a' : `${((100 * detected) / valid).toFixed(2)}%`;
};
const line = (name, c) =>
  `${name.padEnd(12)} ${score(c).padStart(7)}  killed ${c.Killed}, timeout ${c.Timeout}, survived ${c.Survived}, ` +
  `no coverage ${c.NoCoverage}, ignored ${c.Ignored}, compile errors ${c.CompileError}, runtime errors ${c.RuntimeError}`;

const parts = readdirSync(dir)
  .filter((name) => /^[a-z-]+\.json$/.test(name))
  .map((name) => name.replace(/\.json$/, ''));
for (const part of parts) {
  const counts = Object.fromEntries(STATUSES.map((status) => [status, 0]));
  for (const m of mutantsOf(part)) {
    counts[m.status] += 1;
    if (undetected(m.status)) {
      const where = `${relative(process.cwd(), m.path)}:${m.location.start.line}:${m.location.start.column}`;
      list.push(`${m.status.padEnd(10)} ${where} ${m.mutatorName}: ${JSON.stringify(m.replacement ?? '')}`);
    }
  }
  for (const status of STATUSES) total[status] += counts[status];
  console.log(line(part, counts));
}
console.log(line('total', total));
console.log(`mutants: ${Object.values(total).reduce((a, b) => a + b, 0)} (${total.Ignored} ignored as static)`);
if (listSurvivors) for (const entry of list) console.log(entry);
