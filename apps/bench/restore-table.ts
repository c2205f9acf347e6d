import { markdownTable } from './markdown-table.js';
import type { RestoreResult, RestoreRow } from './restore-row.interface.js';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The restore results as a Markdown table: the median start time over the journal, normalized
 * to seconds per 100k records and records/s, next to the median start time without the journal.
 */
export function restoreTable(results: ReadonlyArray<{ row: RestoreRow; result: RestoreResult }>): string {
  const header = [
    'row',
    'database',
    'records',
    'pending',
    'runs',
    'start s (median)',
    's per 100k records',
    'records/s',
    'start s (all runs)',
    'start s, empty journal',
  ];
  const lines = results.map(({ row, result }) => {
    const seconds = median(result.startSeconds);
    return [
      row.label,
      row.database,
      String(result.records),
      String(result.pending),
      String(result.startSeconds.length),
      seconds.toFixed(3),
      ((seconds * 100_000) / result.records).toFixed(3),
      (result.records / seconds).toFixed(0),
      result.startSeconds.map((s) => s.toFixed(3)).join(', '),
      median(result.emptyStartSeconds).toFixed(3),
    ];
  });
  return markdownTable(header, lines);
}
