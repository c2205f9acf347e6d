import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One reference in a Markdown file that does not resolve, as `file:line: what`. */
export type BrokenReference = string;

// Folders that hold no documented source: installed, built or generated files.
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git', 'data', 'reports', 'coverage', '.stryker-tmp']);

// A `file:line` or `file:line:col` reference to a file of the repository, in prose or inline code.
const FILE_LINE = /(?<![\w./-])((?:[\w.-]+\/)*[\w.-]+\.(?:ts|js|mjs|cjs|json|md|sh|sql|ya?ml)):(\d+)(?::(\d+))?/g;
// A file named in inline code, such as `test/journal/retention.int-spec.ts` (globs, placeholders
// and build output are not files of the repository).
const CODE_FILE = /`([^`\s*<>]+\.(?:ts|js|mjs|cjs|json|md|sh|sql|ya?ml))`/g;
// An inline link or image, `[text](target)` or `[text](target "title")`, and a reference definition.
const INLINE_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/;

interface Line {
  number: number;
  text: string;
}

/** The lines of a Markdown document outside fenced code blocks (code there is not a reference). */
function proseLines(markdown: string): Line[] {
  const lines: Line[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === undefined && marker) fence = marker;
    else if (fence !== undefined && marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    else if (fence === undefined) lines.push({ number: index + 1, text });
  });
  return lines;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces made `-`. */
export function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading keeps only its text
    .replace(/<[^>]+>/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown document defines: its headings' slugs (repeats get `-1`, `-2`...). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

/** The repository's files (relative, `/`-separated), without installed or built ones. */
export function repositoryFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(join(folder, entry.name));
      } else if (entry.isFile()) files.push(relative(root, join(folder, entry.name)).split(sep).join('/'));
    }
  };
  walk(root);
  return files;
}

/**
 * Every relative link (file and `#anchor`), every `file:line[:col]` reference and every file
 * named in inline code of the given Markdown files (paths relative to `root`) that does not
 * resolve. A link must stay inside the
 * repository. A `file:line` path is read from the repository's root, from the document's folder,
 * or as the end of exactly one file's path (so `database/journal-rows.ts:57` may name the
 * library's file); the line must exist, and the column must fall within it. A file named in inline
 * code must exist under one of those readings (`main.ts` may be any of several).
 */
export function brokenReferences(root: string, documents: readonly string[]): BrokenReference[] {
  const broken: BrokenReference[] = [];
  const files = repositoryFiles(root);
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string): Set<string> => {
    let anchors = anchorCache.get(file);
    if (!anchors) anchorCache.set(file, (anchors = anchorsOf(readFileSync(file, 'utf8'))));
    return anchors;
  };

  // A path read from the repository's root or the document's folder, else the one file whose
  // path ends with it.
  const locate = (file: string, folder: string): { target?: string; bySuffix: string[] } => {
    const direct = [resolve(root, file), resolve(folder, file)].find((candidate) => existsSync(candidate));
    const bySuffix = direct ? [] : files.filter((known) => known === file || known.endsWith(`/${file}`));
    return { target: direct ?? (bySuffix.length === 1 ? resolve(root, bySuffix[0]!) : undefined), bySuffix };
  };

  for (const document of documents) {
    const path = resolve(root, document);
    const folder = dirname(path);
    const where = (line: Line): string => `${document}:${line.number}`;

    for (const line of proseLines(readFileSync(path, 'utf8'))) {
      const targets = [...line.text.matchAll(INLINE_LINK)].map((match) => match[1]!);
      const definition = LINK_DEFINITION.exec(line.text)?.[1];
      if (definition !== undefined) targets.push(definition);

      for (const target of targets) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
        const hash = target.indexOf('#');
        const filePart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
        const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
        const linked = filePart === '' ? path : resolve(folder, filePart);
        if (relative(root, linked).startsWith('..')) {
          broken.push(`${where(line)}: link ${target} leaves the repository`);
          continue;
        }
        if (!existsSync(linked)) {
          broken.push(`${where(line)}: link ${target}: no such file`);
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        if (statSync(linked).isDirectory() || !linked.endsWith('.md')) {
          broken.push(`${where(line)}: link ${target}: an anchor into a file that has no headings`);
        } else if (!anchorsIn(linked).has(anchor)) {
          broken.push(`${where(line)}: link ${target}: no heading #${anchor} in ${relative(root, linked)}`);
        }
      }

      for (const [reference, file, lineText, columnText] of line.text.matchAll(FILE_LINE)) {
        const { target, bySuffix } = locate(file!, folder);
        if (!target) {
          const why = bySuffix.length > 1 ? `ambiguous (${bySuffix.join(', ')}); give more of the path` : 'no such file';
          broken.push(`${where(line)}: ${reference}: ${why}`);
          continue;
        }
        const lines = readFileSync(target, 'utf8').split('\n');
        const lineNumber = Number(lineText);
        if (lineNumber < 1 || lineNumber > lines.length) {
          broken.push(`${where(line)}: ${reference}: ${relative(root, target)} has ${lines.length} lines`);
          continue;
        }
        if (columnText !== undefined) {
          const column = Number(columnText);
          const length = lines[lineNumber - 1]!.length;
          if (column < 1 || column > length + 1) {
            broken.push(`${where(line)}: ${reference}: line ${lineNumber} of ${relative(root, target)} has ${length} characters`);
          }
        }
      }

      for (const [, file] of line.text.matchAll(CODE_FILE)) {
        if (file!.startsWith('dist/') || file!.includes('/dist/')) continue;
        const { target, bySuffix } = locate(file!, folder);
        if (!target && bySuffix.length === 0) broken.push(`${where(line)}: \`${file}\`: no such file`);
      }
    }
  }
  return broken;
}

/**
 * What a long page's table of contents misses: a page of more than `longerThan` lines must list,
 * before its first section, a link to each of its `##` sections (as `- [Title](#anchor)`).
 */
export function tableOfContentsGaps(root: string, documents: readonly string[], longerThan: number): string[] {
  const gaps: string[] = [];
  for (const document of documents) {
    const markdown = readFileSync(resolve(root, document), 'utf8');
    if (markdown.split('\n').length <= longerThan) continue;
    const lines = proseLines(markdown);
    const firstSection = lines.findIndex(({ text }) => /^## /.test(text));
    const listed = new Set(
      lines
        .slice(0, firstSection === -1 ? lines.length : firstSection)
        .flatMap(({ text }) => [...text.matchAll(/^\s*[-*] \[[^\]]*\]\(#([^)]+)\)/g)].map((match) => match[1]!)),
    );
    for (const { number, text } of lines) {
      const section = /^## (.*)$/.exec(text)?.[1];
      if (section !== undefined && !listed.has(headingSlug(section))) {
        gaps.push(`${document}:${number}: "## ${section}" is not in the table of contents (add - [${section}](#${headingSlug(section)}))`);
      }
    }
  }
  return gaps;
}

/**
 * The pages a reader follows, relative to `root`: the front door, the topic pages and what npm
 * shows for each package.
 */
export function documentationPages(root: string): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
    ...readdirSync(join(root, 'libs'))
      .map((name) => `libs/${name}/README.md`)
      .filter((path) => existsSync(join(root, path))),
  ];
}
