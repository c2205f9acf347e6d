/*
 * The folder-level import graph of a source tree on disk, by scripts/folder-graph-core.mjs (the one
 * implementation, shared with scripts/folder-graph.mjs): built from the TypeScript sources' own
 * import and export-from statements, type-only ones included. Each file belongs to its first folder
 * under the root (a file directly in the root is a node of its own, `./name`: the module and the
 * barrel sit above every folder, the constants below them); only relative imports count.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { folderCycles, folderGraphOf, isSource } from '../../scripts/folder-graph-core.mjs';

export { folderCycles };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return isSource(name) ? [path] : [];
  });
}

/** folder → the folders its files import (itself excluded), and one file-level edge per folder edge, of the tree on disk. */
export function folderGraph(root: string): Map<string, Map<string, string>> {
  const absolute = resolve(root);
  const files = sources(absolute).map((file) => relative(absolute, file).split(sep).join('/'));
  return folderGraphOf(files, (file) => readFileSync(join(absolute, ...file.split('/')), 'utf8'));
}
