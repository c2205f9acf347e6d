/*
 * The domain's boundary with persistence (issue 49): outside a `persistence/` folder no source
 * file imports a TypeORM entity (a `*.entity` file, or a name ending in `Entity`), so the domain
 * works with its own types (`model/`) and the stores map rows at their ports; and ids are
 * lower-cased in one place only (the normaliser), where they enter, never again further in; the
 * server (`src/`) calls that normaliser too, and lower-cases only HTTP names and tokens.
 * Specs are left out: a test may build rows or ids as it likes. No dependency: comments are
 * skipped by a small scanner, so a comment may name what the code must not do.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * A TypeScript source without its comments (a block comment leaves its line breaks, so lines keep
 * their numbers); string literals kept as they are, a `//` in one too, or, with `blankStrings`,
 * emptied (quoted strings only: a template's `${}` is code).
 */
export function withoutComments(text: string, blankStrings = false): string {
  let code = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2) === -1 ? text.length : text.indexOf('*/', i + 2) + 2;
      code += text.slice(i, end).replace(/[^\n]/g, '');
      i = end;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      code += blankStrings && c !== '`' ? c + c : text.slice(i, j + 1);
      i = j + 1;
    } else {
      code += c;
      i += 1;
    }
  }
  return code;
}

/** An import or re-export (static or dynamic) of a module: its clause (if any) and its specifier. */
const IMPORT = /\b(?:import|export)\s*(?:type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
const ENTITY_FILE = /\.entity(?:\.js|\.ts)?$/;
const ENTITY_NAME = /\b[A-Z]\w*Entity\b/;

/** Every file outside `persistence/` under `root` that imports an entity: `file: specifier`. */
export function entityImports(root: string): string[] {
  const breaches: string[] = [];
  for (const file of sources(root)) {
    const path = relative(root, file);
    if (path.split(sep).includes('persistence')) continue;
    for (const match of withoutComments(readFileSync(file, 'utf8')).matchAll(IMPORT)) {
      const clause = match[1] ?? '';
      const specifier = match[2] ?? match[3]!;
      if (ENTITY_FILE.test(specifier) || ENTITY_NAME.test(clause)) breaches.push(`${path}: ${specifier}`);
    }
  }
  return breaches;
}

const LOWER_CASING = /\.\s*to(?:Locale)?LowerCase\s*\(/;

/**
 * Every line under `root` that lower-cases a string, outside the `allowed` files (paths relative
 * to `root`): `file:line: code`.
 */
export function lowerCasings(root: string, allowed: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of sources(root)) {
    const path = relative(root, file).split(sep).join('/');
    if (allowed.includes(path)) continue;
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    withoutComments(text, true)
      .split('\n')
      .forEach((line, i) => {
        if (LOWER_CASING.test(line)) found.push(`${path}:${i + 1}: ${lines[i]!.trim()}`);
      });
  }
  return found;
}
