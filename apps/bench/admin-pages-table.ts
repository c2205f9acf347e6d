import type { AdminPagesResult, AdminPagesRow } from './admin-pages.rows.js';
import { markdownTable } from './markdown-table.js';

/** The admin page timings as a Markdown table, one line per page. */
export function adminPagesTable(results: ReadonlyArray<{ row: AdminPagesRow; result: AdminPagesResult }>): string {
  const header = ['row', 'page', 'items', 'ms per page (median)', 'ms (slowest)'];
  const lines = results.flatMap(({ row, result }) =>
    result.pages.map((page) => [row.label, page.page, String(page.items), page.medianMs.toFixed(2), page.maxMs.toFixed(2)]),
  );
  return markdownTable(header, lines);
}
