import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { folderCycles, folderGraph } from './folder-graph.js';

/**
 * The folders of the library and of the server form layers (issue 38): no folder imports, through
 * any chain of its files' imports, a folder that imports it back. A cycle names its folders and,
 * for each folder edge inside it, one import that makes it.
 */
describe('folder layers', () => {
  const knotsOf = (root: string): string[] => {
    const graph = folderGraph(root);
    return folderCycles(graph).map((knot) => {
      const edges = knot.flatMap((from) =>
        [...(graph.get(from) ?? new Map<string, string>())]
          .filter(([to]) => knot.includes(to))
          .map(([to, why]) => `  ${from} → ${to}: ${why}`),
      );
      return [knot.join(', '), ...edges].join('\n');
    });
  };

  // persistence/'s rooms (issue 49) form layers of their own: the dialects at the bottom, the connection on top.
  it.each(['libs/process-notifications/src', 'src', 'libs/process-notifications/src/persistence'])(
    '%s has no folder-level import cycle',
    (root) => {
      expect(knotsOf(root)).toEqual([]);
    },
  );

  describe('the graph it checks', () => {
    let root: string;
    const write = (path: string, text: string): void => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };

    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'pn-folder-graph-'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('finds a cycle made of a type import and a re-export, through a nested file', () => {
      write('low/thing.ts', "import type { High } from '../high/deep/high.js';\nexport interface Low { high: High }\n");
      write('high/deep/high.ts', "export type { Low } from '../../low/thing.js';\nexport interface High { n: number }\n");
      write('top.ts', "import { Low } from './low/thing.js';\n");
      expect(folderCycles(folderGraph(root))).toEqual([['high', 'low']]);
    });

    it('finds a cycle through three folders, and none once one edge goes away', () => {
      write('a/a.ts', "import {\n  b,\n} from '../b/b.js';\n");
      write('b/b.ts', "import { c } from '../c/c.js';\n");
      write('c/c.ts', "const a = await import('../a/a.js');\n");
      expect(folderCycles(folderGraph(root))).toEqual([['a', 'b', 'c']]);
      write('c/c.ts', "import { x } from 'some-package';\n");
      expect(folderCycles(folderGraph(root))).toEqual([]);
    });

    it('treats files directly in the root as nodes of their own, and ignores specs', () => {
      write('module.ts', "import { a } from './a/a.js';\n");
      write('constants.ts', 'export const X = 1;\n');
      write('a/a.ts', "import { X } from '../constants.js';\n");
      write('a/a.spec.ts', "import { m } from '../module.js';\n");
      expect(folderCycles(folderGraph(root))).toEqual([]);
    });
  });
});
