/*
 * Where a database's own statements may be written (issue 49): SQLite's `PRAGMA` and
 * `sqlite_master`, PostgreSQL's `pg_notify`, advisory locks and `LATERAL` joins live in the
 * store dialects (`persistence/dialects/`), the one place that holds what differs between the
 * databases. The migrations keep their own SQL per database, and are left out, as are specs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { stringLiterals } from './store-boundary.js';

/** The statements (or their telling part) of one database only. */
const DIALECT_TOKEN = /\b(PRAGMA|sqlite_master|pg_notify|pg_(?:try_)?advisory_\w+|LATERAL)\b/;

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
      if (token) found.push(`${parts.join('/')}: ${token[1]}`);
    }
  }
  return found;
}
