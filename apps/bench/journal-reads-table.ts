import type { JournalReadsResult, JournalReadsRow } from './journal-reads.rows.js';
import { markdownTable } from './markdown-table.js';

/** The journal-read rows as Markdown tables: one per set of columns (page times; noisy neighbour). */
export function journalReadsTable(rows: ReadonlyArray<{ row: JournalReadsRow; result: JournalReadsResult }>): string {
  const groups = new Map<string, Array<{ row: JournalReadsRow; result: JournalReadsResult }>>();
  for (const entry of rows) {
    const key = entry.result.cells.map((cell) => cell.label).join('|');
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  return [...groups.values()]
    .map((group) => {
      const header = ['row', 'what', ...group[0]!.result.cells.map((cell) => cell.label)];
      const lines = group.map(({ row, result }) => [
        row.id,
        row.label,
        ...result.cells.map((cell) => cell.ms.toFixed(cell.ms < 10 ? 2 : 1)),
      ]);
      return `${markdownTable(header, lines)}\n\n${group[0]!.result.note}`;
    })
    .join('\n\n');
}
