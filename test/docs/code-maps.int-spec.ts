import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The docs that list what the code has, held to the code: a folder or an error added without
// its row fails here.
const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const read = (path: string): string => readFileSync(join(repo, path), 'utf8');
// The first cell of each table row, without its backticks: `| \`admin/\` | ...` gives `admin/`.
const firstCells = (markdown: string): Set<string> => new Set([...markdown.matchAll(/^\| `([^`]+)` \|/gm)].map((row) => row[1]));

describe('the documentation of the library', () => {
  it('maps every folder of the library in docs/architecture.md', () => {
    const folders = readdirSync(join(repo, 'libs/process-notifications/src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${entry.name}/`);
    const rows = firstCells(read('docs/architecture.md'));
    expect(folders.filter((folder) => !rows.has(folder))).toEqual([]);
  });

  it('lists every error the package exports in docs/embedding.md, with its code', () => {
    const exported = [
      ...read('libs/process-notifications/src/index.ts').matchAll(/export \{ (\w+Error) \} from '\.\/errors\/([\w.-]+)\.js'/g),
    ];
    expect(exported.length).toBeGreaterThan(10);
    const embedding = read('docs/embedding.md');
    const rows = new Map([...embedding.matchAll(/^\| `(\w+Error)` \| `(\w+)` \|/gm)].map((row) => [row[1], row[2]]));
    const missing = exported
      .map(([, name, file]) => ({
        name,
        code: /readonly code = '(\w+)'/.exec(read(`libs/process-notifications/src/errors/${file}.ts`))?.[1],
      }))
      // The abstract base has no code of its own; the page names it in its prose.
      .filter(({ name, code }) => (code === undefined ? !embedding.includes(`\`${name}\``) : rows.get(name) !== code))
      .map(({ name, code }) => `${name} (${code ?? 'base'})`);
    expect(missing).toEqual([]);
  });
});
