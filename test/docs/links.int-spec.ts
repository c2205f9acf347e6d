import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anchorsOf, brokenReferences, documentationPages, tableOfContentsGaps } from './doc-references.js';

// A docs page longer than this needs a table of contents.
const LONG_PAGE_LINES = 100;

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

// What a reader follows: the front door, the topic pages and what npm shows for each package.
const documents = (): string[] => documentationPages(repo);

describe('the documentation', () => {
  it('has only links, file:line references and named files that resolve', () => {
    expect(documents()).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/contract.md',
        'libs/process-notifications/README.md',
        'libs/process-notifications-client/README.md',
      ]),
    );
    expect(brokenReferences(repo, documents())).toEqual([]);
  });

  it('lists every section of a long page in its table of contents', () => {
    expect(
      tableOfContentsGaps(
        repo,
        documents().filter((path) => path.startsWith('docs/')),
        LONG_PAGE_LINES,
      ),
    ).toEqual([]);
  });

  it('keeps the README the front door: at most about 300 lines, the two commands first', () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(320);
    const commands = [...readme.matchAll(/```sh\n([^\n]*)\n```/g)].map((match) => match[1]);
    expect(commands.slice(0, 2)).toEqual(['npm ci && npm start', 'npm ci && npm test']);
  });
});

// The checker itself, on a repository made for the purpose: each kind of drift is reported.
describe('the documentation check', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pn-docs-'));
    mkdirSync(join(root, 'docs'));
    mkdirSync(join(root, 'libs/lib/src/database'), { recursive: true });
    writeFileSync(join(root, 'libs/lib/src/database/rows.ts'), 'const a = 1;\nexport const b = a;\n');
    writeFileSync(join(root, 'docs/topic.md'), '# Topic\n\n## Durability: what you can rely on\n\n## Repeated\n\n## Repeated\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const check = (markdown: string): string[] => {
    writeFileSync(join(root, 'README.md'), markdown);
    return brokenReferences(root, ['README.md']);
  };

  it('accepts links, anchors and file:line references that resolve', () => {
    expect(
      check(
        [
          '[topic](docs/topic.md), [durability](docs/topic.md#durability-what-you-can-rely-on), [again](docs/topic.md#repeated-1)',
          '[web](https://example.com/x.md#nowhere), [self](#readme)',
          '# Readme',
          'See `libs/lib/src/database/rows.ts:2`, `database/rows.ts:2:20` and rows.ts:1.',
          '```',
          '[in code](missing.md) missing.ts:9',
          '```',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('reports a missing file, a missing anchor and a link out of the repository', () => {
    expect(check('[a](docs/gone.md)\n[b](docs/topic.md#moved)\n[c](../shared/spec.md)\n[d](#nothing)\n')).toEqual([
      'README.md:1: link docs/gone.md: no such file',
      'README.md:2: link docs/topic.md#moved: no heading #moved in docs/topic.md',
      'README.md:3: link ../shared/spec.md leaves the repository',
      'README.md:4: link #nothing: no heading #nothing in README.md',
    ]);
  });

  it('reports a file:line whose file, line or column is gone, and an ambiguous path', () => {
    writeFileSync(join(root, 'docs/rows.ts'), 'x\n');
    expect(check('`gone.ts:1`, `database/rows.ts:9`, `database/rows.ts:1:14`, `rows.ts:1`\n')).toEqual([
      'README.md:1: gone.ts:1: no such file',
      'README.md:1: database/rows.ts:9: libs/lib/src/database/rows.ts has 3 lines',
      'README.md:1: database/rows.ts:1:14: line 1 of libs/lib/src/database/rows.ts has 12 characters',
      'README.md:1: rows.ts:1: ambiguous (docs/rows.ts, libs/lib/src/database/rows.ts); give more of the path',
    ]);
  });

  it('reports a section that a long page does not list in its table of contents', () => {
    const page = (toc: string): string => `# Page\n\n${toc}\n\n## One\n\ntext\n\n## Two: the second\n`;
    writeFileSync(join(root, 'docs/short.md'), page('- [One](#one)'));
    writeFileSync(join(root, 'docs/complete.md'), page('- [One](#one)\n- [Two: the second](#two-the-second)'));
    writeFileSync(join(root, 'docs/gap.md'), page('- [One](#one)'));
    expect(tableOfContentsGaps(root, ['docs/short.md'], 20)).toEqual([]);
    expect(tableOfContentsGaps(root, ['docs/complete.md', 'docs/gap.md'], 5)).toEqual([
      'docs/gap.md:9: "## Two: the second" is not in the table of contents (add - [Two: the second](#two-the-second))',
    ]);
  });

  it('reports a file named in inline code that does not exist', () => {
    expect(check('`database/rows.ts`, `rows.ts`, `src/**/*.ts`, `dist/gone.js`, `reports/<part>.json`, `database/gone.ts`\n')).toEqual([
      'README.md:1: `database/gone.ts`: no such file',
    ]);
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect([...anchorsOf('# A `code` title: with, punctuation!\n## Several nodes\n## Several nodes\n```\n# not a heading\n```\n')]).toEqual(
      ['a-code-title-with-punctuation', 'several-nodes', 'several-nodes-1'],
    );
  });
});
