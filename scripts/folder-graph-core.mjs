// The folder-level import graph of a source tree: one implementation for the architecture test
// (test/architecture/folder-graph.ts, which reads the files on disk) and scripts/folder-graph.mjs
// (which prints the figures, of the working tree or of a revision). Plain JavaScript, so a script
// runs it without a TypeScript loader; its types are in folder-graph-core.d.mts.
// Rules: a source file is a `.ts` file that is neither a spec nor a declaration; each file belongs
// to its first folder under the root (a file directly in the root is a node of its own, `./name`);
// only relative imports count, type-only ones included (a type import ties folders together just
// the same), since a package import cannot close a cycle inside the tree.
import { posix } from 'node:path';

/** `import ... from './x'`, `export ... from './x'`, `import './x'` and `import('./x')`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** Whether a file name is a source file of the graph. */
export const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts');

/** A file's first folder under the root (its path relative to the root, with `/`), or `./name` for a file directly in it. */
export function folderOf(file) {
  const parts = file.split('/');
  return parts.length > 1 ? parts[0] : `./${parts[0].replace(/\.(js|ts)$/, '')}`;
}

/**
 * folder → the folders its files import (itself excluded), each with one file-level edge
 * (`file → specifier`), from the source files (paths relative to the root, with `/`) and their text.
 */
export function folderGraphOf(files, read) {
  const graph = new Map();
  const base = '/root';
  for (const file of files) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Map();
    graph.set(from, edges);
    for (const match of read(file).matchAll(SPECIFIER)) {
      const target = posix.relative(base, posix.resolve(posix.dirname(`${base}/${file}`), match[1]));
      if (target.startsWith('..')) continue;
      const to = folderOf(target);
      if (to !== from && !edges.has(to)) edges.set(to, `${file} → ${match[1]}`);
    }
  }
  return graph;
}

/** The strongly connected components with more than one folder (Tarjan), each sorted, in order of their first folder. */
export function folderCycles(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const knots = [];
  const visit = (node) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), indices.get(next)));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const knot = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        knot.push(member);
      } while (member !== node);
      if (knot.length > 1) knots.push(knot.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return knots.sort((a, b) => a[0].localeCompare(b[0]));
}
