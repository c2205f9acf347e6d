/*
 * Where a database's own statements may be written (issue 49): SQLite's `PRAGMA`,
 * `sqlite_master`, `sqlite_sequence`, `json_extract` and `INSERT OR ...`; PostgreSQL's
 * `pg_notify`, advisory locks, `LATERAL` joins, `unnest` (`WITH ORDINALITY`), `LISTEN`, row locks
 * (`FOR UPDATE`), `SET LOCAL`, `::` casts, `$1` placeholders, `now()`, `interval '...'`, `->>`
 * and `= ANY(...)` live in the store dialects (`persistence/dialects/`), the one place that holds
 * what differs between the databases. The migrations keep their own SQL per database, and are
 * left out, as are specs. (`ON CONFLICT` and `RETURNING` are not here: both databases take them.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { stringLiterals } from './store-boundary.js';

/** The statements (or their telling part) of one database only. */
const DIALECT_TOKEN = new RegExp(
  [
    String.raw`\b(?:PRAGMA|sqlite_master|sqlite_sequence|json_extract|INSERT OR (?:IGNORE|REPLACE))\b`,
    String.raw`\b(?:pg_notify|pg_(?:try_)?advisory_\w+|LATERAL|unnest|WITH ORDINALITY|FOR (?:UPDATE|SHARE)|SET LOCAL)\b`,
    // LISTEN as a statement only: a log line may name the LISTEN connection.
    String.raw`^\s*(?:UN)?LISTEN\b`,
    // A cast to a type (or to one a template names), not `sqlite::memory:`.
    String.raw`::(?:\$\{|(?:text|varchar|int|integer|bigint|boolean|jsonb?|timestamptz|uuid|numeric)\b)`,
    // A numbered placeholder where SQL puts a value, not a regular expression's `$1` replacement.
    String.raw`[=(,]\s*\$\d+\b`,
    // The database's clock (not `performance.now()`), its intervals, JSON text and array membership.
    String.raw`(?<![.\w])now\(\)|\binterval '|->>|= ANY\(`,
  ].join('|'),
  'm',
);

// A migration file: a timestamp, a name, `.migration.ts`.
const MIGRATION = /^\d+-[\w-]+\.migration\.ts$/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every string literal under `root` that holds a database's own statement outside a `dialects/` folder and the migrations: `file: token`. */
export function dialectStatementsOutsideDialects(root: string): string[] {
  const found: string[] = [];
  for (const file of sources(root)) {
    const parts = relative(root, file).split(sep);
    if (parts.includes('dialects') || MIGRATION.test(parts.at(-1)!)) continue;
    for (const literal of stringLiterals(readFileSync(file, 'utf8'))) {
      const token = DIALECT_TOKEN.exec(literal);
      if (token) found.push(`${parts.join('/')}: ${token[0].trim()}`);
    }
  }
  return found;
}
