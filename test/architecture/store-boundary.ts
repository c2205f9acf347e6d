/*
 * The store boundary of a source tree (issue 38): outside a `persistence/` folder no source file
 * imports a database package nor holds an SQL statement in a string literal. Specs are left out:
 * a test sets its database up itself. No dependency: the literals are found by a small scanner
 * that skips comments, so a comment may name a statement.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The database packages (and their subpaths) only `persistence/` may import. */
const DATABASE_PACKAGE =
  /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](typeorm|@nestjs\/typeorm|pg|better-sqlite3)(?:\/[^'"]*)?['"]/g;

/**
 * An SQL statement (or its telling part) inside a string; LISTEN and NOTIFY only as a whole
 * statement, since a log line may name the LISTEN connection.
 */
const SQL =
  /\b(SELECT\s[\s\S]*\bFROM\b|SELECT \d|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE (?:UNIQUE )?(?:TABLE|INDEX)|ALTER TABLE|DROP TABLE|pg_notify)\b|^\s*(?:UN)?(?:LISTEN|NOTIFY) (?:\w+|\$\{[^}]*\})/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The string literals of a TypeScript source (quotes and templates, a template's `${}` included), comments skipped. */
export function stringLiterals(text: string): string[] {
  const literals: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i);
    else if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i + 2) === -1 ? text.length : text.indexOf('*/', i + 2) + 2;
    else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      literals.push(text.slice(i + 1, j));
      i = j + 1;
    } else i += 1;
  }
  return literals;
}

/** Every breach of the boundary under `root`: `file: what`, files in a `persistence/` folder left out. */
export function storeBoundaryBreaches(root: string): string[] {
  const breaches: string[] = [];
  for (const file of sources(root)) {
    const path = relative(root, file);
    if (path.split(sep).includes('persistence')) continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(DATABASE_PACKAGE)) breaches.push(`${path}: imports ${match[1]}`);
    for (const literal of stringLiterals(text)) {
      const sql = SQL.exec(literal);
      if (sql) breaches.push(`${path}: SQL "${sql[0].trim().slice(0, 40)}"`);
    }
  }
  return breaches;
}

/** A branch on the database's driver type: `options.type`, or a driver's name as a string. */
const DRIVER_TYPE = /\boptions\.type\b|['"](?:better-sqlite3|postgres)['"]/;

/**
 * Every file of a `persistence/` folder under `root` that branches on the driver type itself
 * rather than asking its store dialect: `file: line`. The migrations (SQL of their own per
 * database) and the `allowed` files (the dialects, the options) are left out.
 */
export function dialectBranches(root: string, allowed: readonly string[]): string[] {
  const branches: string[] = [];
  for (const file of sources(root)) {
    const parts = relative(root, file).split(sep);
    if (!parts.includes('persistence') || parts.includes('migrations') || allowed.includes(parts.at(-1)!)) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (DRIVER_TYPE.test(line) && !/^\s*(\/\/|\*)/.test(line)) branches.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  return branches;
}
