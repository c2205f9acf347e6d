/*
 * The folder-level import graph of a source tree, built from the TypeScript sources' own import and
 * export-from statements (type-only ones included: a type import ties folders together just the same).
 * Each file belongs to its first folder under the root (a file directly in the root is a node of its
 * own, `./name`: the module and the barrel sit above every folder, the constants below them); only
 * relative imports count, since a package import cannot close a cycle inside the tree.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** `import ... from './x'`, `export ... from './x'`, `import './x'` and `import('./x')`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function folderOf(root: string, file: string): string {
  const parts = relative(root, file).split(sep);
  return parts.length > 1 ? parts[0] : `./${parts[0].replace(/\.(js|ts)$/, '')}`;
}

/** folder → the folders its files import (itself excluded), and one file-level edge per folder edge. */
export function folderGraph(root: string): Map<string, Map<string, string>> {
  const absolute = resolve(root);
  const graph = new Map<string, Map<string, string>>();
  for (const file of sources(absolute)) {
    const from = folderOf(absolute, file);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), match[1]);
      if (relative(absolute, target).startsWith('..')) continue;
      const to = folderOf(absolute, target);
      if (to !== from && !edges.has(to)) edges.set(to, `${relative(absolute, file)} → ${match[1]}`);
    }
  }
  return graph;
}

/** The strongly connected components with more than one folder (Tarjan), each sorted. */
export function folderCycles(graph: Map<string, Map<string, string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const knots: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const knot: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        knot.push(member);
      } while (member !== node);
      if (knot.length > 1) knots.push(knot.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return knots;
}
