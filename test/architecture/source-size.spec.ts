import { crowdedFolders, oversizedFiles } from './source-size.js';
import { scratchTree } from './scratch-tree.js';

const LIBRARY = 'libs/process-notifications/src';

/**
 * The library stays readable in parts (issue 49): no source file over 300 lines, no folder with
 * more than 20 source files directly in it (specs and declarations are not source files here).
 */
describe('source size', () => {
  it('has no library source file over 300 lines', () => {
    expect(oversizedFiles(LIBRARY, 300)).toEqual([]);
  });

  it('has no library folder with more than 20 source files directly in it', () => {
    expect(crowdedFolders(LIBRARY, 20)).toEqual([]);
  });

  describe('the check itself', () => {
    const tree = scratchTree('pn-source-size-');

    it('counts lines of sources only, a final newline not a line of its own', () => {
      tree.write('a/long.ts', 'x\n'.repeat(4));
      tree.write('a/short.ts', 'x\n'.repeat(3));
      tree.write('a/long.spec.ts', 'x\n'.repeat(10));
      tree.write('a/b/types.d.ts', 'x\n'.repeat(10));
      expect(oversizedFiles(tree.root(), 3)).toEqual(['a/long.ts: 4 lines']);
    });

    it('counts the source files directly in each folder, not those below it nor specs', () => {
      for (const name of ['one', 'two', 'three']) {
        tree.write(`top/${name}.ts`, '');
        tree.write(`top/${name}.spec.ts`, '');
        tree.write(`top/deep/${name}.ts`, '');
      }
      tree.write('top/deep/four.ts', '');
      expect(crowdedFolders(tree.root(), 3)).toEqual(['top/deep: 4 files']);
    });
  });
});
