import type { BenchResult, BenchRow } from './bench-row.interface.js';

const fixed = (value: number, digits: number) => value.toFixed(digits);

/** The results as a Markdown table; "x floor" is the row's time per item over its floor's. */
export function resultsTable(results: ReadonlyArray<{ row: BenchRow; result: BenchResult }>): string {
  const byId = new Map(results.map(({ row, result }) => [row.id, result]));
  const header = ['row', 'database', 'concurrency', 'items', 'notifications/s', 'p50 ms', 'p99 ms', 'x floor'];
  const lines = results.map(({ row, result }) => {
    const perSecond = result.items / result.seconds;
    const floor = row.floor ? byId.get(row.floor) : undefined;
    const ratio = floor ? fixed(floor.items / floor.seconds / perSecond, 2) : row.id.startsWith('floor/') ? '1.00' : '';
    return [
      row.label,
      row.database,
      String(row.concurrency),
      String(result.items),
      fixed(perSecond, 0),
      fixed(result.p50Ms, 3),
      fixed(result.p99Ms, 3),
      ratio,
    ];
  });
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i]!.length)));
  const format = (cells: string[]) => `| ${cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => (i < 2 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [format(header), rule, ...lines.map(format)].join('\n');
}
