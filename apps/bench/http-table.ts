import type { HttpResult, HttpRow } from './http-row.interface.js';
import { markdownTable } from './markdown-table.js';

/**
 * The HTTP results as a Markdown table; "x ceiling" is the row's time per request over its
 * ceiling's (ceiling requests/s over the row's), "server µs" the server's busy time per request and
 * "x ceiling, server" that time over the ceiling's, "x floor" the row's requests/s over its
 * framework-free floor's (above 1 beats the floor), and the status column shows every response.
 */
export function httpTable(results: ReadonlyArray<{ row: HttpRow; result: HttpResult }>): string {
  const byId = new Map(results.map(({ row, result }) => [row.id, result]));
  const header = [
    'route',
    'database',
    'connections',
    'seconds',
    'requests',
    'requests/s',
    'p50 ms',
    'p99 ms',
    'x ceiling',
    'server µs',
    'x ceiling, server',
    'x floor',
    'non-2xx',
    'statuses',
  ];
  const lines = results.map(({ row, result }) => {
    const perSecond = result.requests / result.seconds;
    const ceiling = row.ceiling ? byId.get(row.ceiling) : undefined;
    const floor = row.floor ? byId.get(row.floor) : undefined;
    return [
      row.label,
      row.database,
      String(row.connections),
      result.seconds.toFixed(1),
      String(result.requests),
      perSecond.toFixed(0),
      result.p50Ms.toFixed(1),
      result.p99Ms.toFixed(1),
      ceiling ? (ceiling.requests / ceiling.seconds / perSecond).toFixed(2) : '',
      result.serverUs === undefined ? '' : result.serverUs.toFixed(1),
      ceiling?.serverUs !== undefined && result.serverUs !== undefined ? (result.serverUs / ceiling.serverUs).toFixed(2) : '',
      floor ? (perSecond / (floor.requests / floor.seconds)).toFixed(2) : '',
      String(result.non2xx),
      Object.entries(result.statusCounts)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', '),
    ];
  });
  return markdownTable(header, lines);
}
