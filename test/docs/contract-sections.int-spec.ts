import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { citedSections, contractSections, missingSections } from './contract-sections.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

// Where code comments and docs cite the contract.
const FOLDERS = ['libs', 'src', 'apps', 'test', 'docs', 'scripts'].filter((folder) => existsSync(join(repo, folder)));

describe('the contract', () => {
  it('has every section that the code and the docs cite', () => {
    // The checker and its own test cite made-up sections on purpose.
    const ownFiles = /^test\/docs\/contract-sections\./;
    expect(missingSections(repo, 'docs/contract.md', FOLDERS, ['README.md']).filter((line) => !ownFiles.test(line))).toEqual([]);
  });
});

// The checker itself, on a repository made for the purpose.
describe('the contract section check', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pn-contract-'));
    mkdirSync(join(root, 'docs'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'docs/contract.md'), '# Contract\n\n## 1. One\n\n## 2. Two\n\n### 2.1 Two, first part\n\n## Under faults\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads numbered headings as sections', () => {
    expect([...contractSections('## 9. Nodes\n### 12.1 Admin\n## Under faults\n# 3. Title\n')]).toEqual(['9', '12.1']);
  });

  it('reads the ways the code and the docs cite a section, and not another document', () => {
    expect(citedSections('spec section 12.1, §14 and §8; Section 6')).toEqual(['12.1', '14', '8', '6']);
    expect(citedSections('(spec sections 8, 14 and 15), sections 2-4, sections 9 or 13')).toEqual([
      '8',
      '14',
      '15',
      '2',
      '3',
      '4',
      '9',
      '13',
    ]);
    expect(citedSections('Origin-form only (RFC 9112 section 3.2.1): a target')).toEqual([]);
    expect(citedSections('the section above, a new section')).toEqual([]);
  });

  it('reports a citation of a section the contract does not have', () => {
    writeFileSync(join(root, 'src/a.ts'), '// As section 2.1 says.\n// Spec sections 1 and 3, section 12.2.\n');
    writeFileSync(join(root, 'docs/b.md'), 'See [section 2](contract.md#2-two) and §4.\n');
    expect(missingSections(root, 'docs/contract.md', ['src', 'docs'])).toEqual([
      'src/a.ts:2: section 3 is not in docs/contract.md',
      'src/a.ts:2: section 12.2 is not in docs/contract.md',
      'docs/b.md:1: section 4 is not in docs/contract.md',
    ]);
  });
});
