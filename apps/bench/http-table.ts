import type { HttpResult, HttpRow } from './http-row.interface.js';
import { markdownTable } from './markdown-table.js';
import { pairedRatio } from './paired-ratio.js';

/**
 * The HTTP results as a Markdown table; "x ceiling" is the row's time per request over its
 * ceiling's (ceiling requests/s over the row's), "server µs" the server's busy time per request and
 * "x ceiling, server" that time over the ceiling's, "x floor" the row's requests/s over its
 * framework-free floor's (above 1 beats the floor), and the status column shows every response.
 * The "paired" columns take the same ratios round by round and report their median
 * ({@link pairedRatio}): the figure to quote on a machine whose speed drifts between rounds.
 */
export function httpTable(results: ReadonlyArray<{ row: HttpRow; result: HttpResult; rounds: readonly HttpResult[] }>): string {
  const byId = new Map(results.map(({ row, result }) => [row.id, result]));
  const roundsById = new Map(results.map(({ row, rounds }) => [row.id, rounds]));
  const perSecondOf = (result: HttpResult) => result.requests / result.seconds;
  const paired = (rounds: readonly HttpResult[], id: string | undefined, value: (result: HttpResult) => number, invert = false) => {
    const reference = id === undefined ? undefined : roundsById.get(id);
    const ratio = reference && (invert ? pairedRatio(reference, rounds, value) : pairedRatio(rounds, reference, value));
    return ratio === undefined ? '' : ratio.toFixed(2);
  };
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
    'x ceiling, paired',
    'x floor, paired',
    'p99 x floor, paired',
    'non-2xx',
    'statuses',
  ];
  const lines = results.map(({ row, result, rounds }) => {
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
      paired(rounds, row.ceiling, perSecondOf, true),
      paired(rounds, row.floor, perSecondOf),
      paired(rounds, row.floor, (r) => r.p99Ms),
      String(result.non2xx),
      Object.entries(result.statusCounts)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', '),
    ];
  });
  return markdownTable(header, lines);
}
