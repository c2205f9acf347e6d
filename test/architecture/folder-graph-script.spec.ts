import { execFileSync } from 'node:child_process';
import { folderCycles, folderGraph } from './folder-graph.js';

/**
 * scripts/folder-graph.mjs prints the folder figures docs/architecture.md and issue 49 quote, from
 * the graph module the folder-layers test uses (scripts/folder-graph-core.mjs): what it prints must
 * be the very edges and cycles that test checks, or the figures would describe another graph.
 */
describe('scripts/folder-graph.mjs', () => {
  const root = 'libs/process-notifications/src';

  it('finds the folder edges and cycles of test/architecture/folder-graph.ts on the current tree', () => {
    const printed = JSON.parse(execFileSync(process.execPath, ['scripts/folder-graph.mjs', root, '--json'], { encoding: 'utf8' })) as {
      edges: Array<{ from: string; to: string }>;
      cycles: string[][];
      folders: Array<{ lines: number }>;
      lines: number;
    };
    const graph = folderGraph(root);
    const edges = [...graph].flatMap(([from, targets]) => [...targets.keys()].map((to) => `${from} → ${to}`)).sort();

    expect(printed.edges.map(({ from, to }) => `${from} → ${to}`).sort()).toEqual(edges);
    expect(edges.length).toBeGreaterThan(50);
    expect(printed.cycles.map((knot) => knot.join(', ')).sort()).toEqual(
      folderCycles(graph)
        .map((knot) => knot.join(', '))
        .sort(),
    );
    expect(printed.folders.reduce((sum, { lines }) => sum + lines, 0)).toBe(printed.lines);
  });
});
