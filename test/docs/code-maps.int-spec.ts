import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROBLEM_TYPES } from '../../src/http/problem-types.js';

// The docs that list what the code has, held to the code: a folder or an error added without
// its row fails here.
const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const read = (path: string): string => readFileSync(join(repo, path), 'utf8');
// The first cell of each table row, without its backticks: `| \`admin/\` | ...` gives `admin/`.
const firstCells = (markdown: string): Set<string> => new Set([...markdown.matchAll(/^\| `([^`]+)` \|/gm)].map((row) => row[1]));
// The text of a `## heading` section, up to the next `## ` heading.
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}
const foldersOf = (path: string): string[] =>
  readdirSync(join(repo, path), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${entry.name}/`);

describe('the documentation of the library', () => {
  it('maps every folder of the library and of the server in docs/architecture.md, each in its own section', () => {
    const architecture = read('docs/architecture.md');
    const library = firstCells(section(architecture, 'What each library folder holds'));
    const server = firstCells(section(architecture, 'The server around the library'));
    expect(foldersOf('libs/process-notifications/src').filter((folder) => !library.has(folder))).toEqual([]);
    expect(foldersOf('src').filter((folder) => !server.has(folder))).toEqual([]);
  });

  it("maps every folder of the repository in docs/development.md's layout: each package and app, and every other top-level one", () => {
    // The folders git tracks: nothing ignored (node_modules/, dist/) nor a checkout's own (.vscode/).
    const tracked = execFileSync('git', ['ls-files'], { cwd: repo, encoding: 'utf8' }).split('\n');
    const folders = new Set(
      tracked.map((file) => /^((?:apps\/|libs\/)?[^/]+\/)/.exec(file)?.[1]).filter((folder): folder is string => folder !== undefined),
    );
    const rows = firstCells(section(read('docs/development.md'), 'Layout'));
    expect([...folders].filter((folder) => !rows.has(folder)).sort()).toEqual([]);
  });

  it('lists every error the package exports in docs/embedding.md, with its code and its HTTP status', () => {
    const exported = [...read('libs/process-notifications/src/index.ts').matchAll(/export \{ (\w+Error) \} from '\.\/([\w./-]+)\.js'/g)];
    expect(exported.length).toBeGreaterThan(10);
    const embedding = read('docs/embedding.md');
    const rows = new Map(
      [...embedding.matchAll(/^\| `(\w+Error)` \| `(\w+)` \| ([^|]+) \|/gm)].map((row) => [row[1], { code: row[2], http: row[3] }]),
    );
    const statuses: Readonly<Record<string, { readonly status: number }>> = PROBLEM_TYPES;
    const wrong = exported
      .map(([, name, file]) => ({ name, code: /readonly code = '(\w+)'/.exec(read(`libs/process-notifications/src/${file}.ts`))?.[1] }))
      // The abstract base has no code of its own; the page names it in its prose.
      .filter(({ name, code }) => {
        if (code === undefined) return !embedding.includes(`\`${name}\``);
        const row = rows.get(name);
        // The status the server answers the code with, or, for a code it never answers, no status.
        const http = Object.hasOwn(statuses, code) ? String(statuses[code].status) : undefined;
        return row?.code !== code || (http === undefined ? /^\d{3}/.test(row.http) : !row.http.startsWith(http));
      })
      .map(({ name, code }) => `${name} (${code ?? 'base'})`);
    expect(wrong).toEqual([]);
  });
});
