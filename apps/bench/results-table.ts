import type { BenchResult, BenchRow } from './bench-row.interface.js';
import { markdownTable } from './markdown-table.js';

const fixed = (value: number, digits: number) => value.toFixed(digits);

/** The results as a Markdown table; "x floor" is the row's time per item over its floor's. */
export function resultsTable(results: ReadonlyArray<{ row: BenchRow; result: BenchResult }>): string {
  const byId = new Map(results.map(({ row, result }) => [row.id, result]));
  const header = ['row', 'database', 'concurrency', 'items', 'items/s', 'p50 ms', 'p99 ms', 'CPU µs/item', 'x floor'];
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
      result.cpuSeconds === undefined ? '' : fixed((1e6 * result.cpuSeconds) / result.items, 1),
      ratio,
    ];
  });
  return markdownTable(header, lines);
}
