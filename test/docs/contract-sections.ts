import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One citation of a contract section that `docs/contract.md` does not have, as `file:line: what`. */
export type MissingSection = string;

// Folders that hold no source of the project's own: installed, built, cached or generated files.
const SKIPPED_FOLDERS = new Set([
  'node_modules',
  'dist',
  '.git',
  'data',
  'reports',
  'coverage',
  '.stryker-tmp',
  '.venv',
  '.mypy_cache',
  '.pytest_cache',
  '__pycache__',
]);
// Files that state facts in comments or prose: code, styles, pages, scripts and Markdown.
const SOURCE_FILE = /\.(?:ts|tsx|js|mjs|cjs|py|html|css|sh|md)$/;

// A section number, `12` or `12.1`.
const NUMBER = String.raw`\d+(?:\.\d+)*`;
// "section 9", "spec section 12.1", "§14", "sections 8 and 9", "sections 10, 14", "sections 2-4",
// "sections 8, 14 and 15": the word or sign, then a list of numbers.
const CITATION = new RegExp(String.raw`(?:\b[Ss]ections?|§)\s?(${NUMBER}(?:\s*(?:,|-|–|\band\b|\bor\b|\bto\b)\s*${NUMBER})*)`, 'g');
// A citation of another document's section, such as "RFC 9112 section 3.2.1" or "RFC 9457 §3".
const OTHER_DOCUMENT = /(?:RFC|ECMA-?|ISO)\s?\d+[\s,(]*$/i;

/** The numbered sections of a contract page: `## 9. Title`, `### 12.1 Title`. */
export function contractSections(markdown: string): Set<string> {
  const sections = new Set<string>();
  for (const match of markdown.matchAll(new RegExp(String.raw`^#{2,4} (${NUMBER})\.? `, 'gm'))) sections.add(match[1]);
  return sections;
}

/** The section numbers one line cites, a range `2-4` spelled out as 2, 3, 4. */
export function citedSections(line: string): string[] {
  const cited: string[] = [];
  for (const match of line.matchAll(CITATION)) {
    if (OTHER_DOCUMENT.test(line.slice(0, match.index))) continue;
    const list = match[1];
    const parts = list.split(/\s*(?:,|\band\b|\bor\b)\s*/);
    for (const part of parts) {
      const range = new RegExp(String.raw`^(\d+)\s*(?:-|–|\bto\b)\s*(\d+)$`).exec(part);
      if (range) {
        for (let n = Number(range[1]); n <= Number(range[2]); n += 1) cited.push(String(n));
      } else cited.push(part);
    }
  }
  return cited;
}

/** Every file under `folder` (relative to `root`) that may cite the contract. */
function sourceFiles(root: string, folder: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED_FOLDERS.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE_FILE.test(entry.name)) files.push(relative(root, path));
    }
  };
  walk(join(root, folder));
  return files;
}

/**
 * Every citation, in the files under `folders` (and `files`), of a section `contract` does not
 * have. A citation names a section of the contract unless it names another document first.
 */
export function missingSections(root: string, contract: string, folders: string[], files: string[] = []): MissingSection[] {
  const sections = contractSections(readFileSync(join(root, contract), 'utf8'));
  const missing: MissingSection[] = [];
  for (const file of [...files, ...folders.flatMap((folder) => sourceFiles(root, folder))]) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const section of citedSections(line)) {
          if (!sections.has(section)) missing.push(`${file}:${index + 1}: section ${section} is not in ${contract}`);
        }
      });
  }
  return missing;
}
