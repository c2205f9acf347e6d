/** A Markdown table; the first `leftColumns` columns are text (left-aligned), the rest numbers. */
export function markdownTable(header: readonly string[], lines: ReadonlyArray<readonly string[]>, leftColumns = 2): string {
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i]!.length)));
  const format = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => (i < leftColumns ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => (i < leftColumns ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [format(header), rule, ...lines.map(format)].join('\n');
}
