import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A temporary source tree for an architecture check's own tests, made before each test and
 * removed after it: `root()` is its folder, `write` puts a file in it (folders made as needed).
 */
export function scratchTree(prefix: string): { root(): string; write(path: string, text: string): void } {
  let root = '';
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  return {
    root: () => root,
    write: (path, text) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    },
  };
}
