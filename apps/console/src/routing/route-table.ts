/*
 * The console's addresses as one table (issue 49): each view's path under /console and its query,
 * read by parseRoute and written by routeHref from the same row, so the two cannot drift apart.
 */
import { LOOP_FILTERS, type LoopFilter } from 'process-notifications-contract';
import type { ConsoleRoute } from './console-route.js';

type View = Exclude<ConsoleRoute['view'], 'unknown'>;
type RouteOf<V extends View> = Extract<ConsoleRoute, { readonly view: V }>;

/** A query's parameters as written; `undefined` ones are left out. */
export type QueryEntries = Record<string, string | number | undefined>;

/** How one view is addressed. */
export interface RouteRow<V extends View = View> {
  /** Its path's segments under /console: a literal, or `:field`, one segment that is the view's `field`. */
  readonly path: readonly string[];
  /** The view's other fields, from the query (none when absent). */
  readonly read?: (query: URLSearchParams) => Partial<RouteOf<V>>;
  /** The query that says them back. */
  readonly write?: (route: RouteOf<V>) => QueryEntries;
}

const isLoopFilter = (value: string | null): value is LoopFilter => (LOOP_FILTERS as readonly (string | null)[]).includes(value);

// An empty parameter says nothing: it is left out of the view.
const present = <K extends string>(field: K, value: string | null): Partial<Record<K, string>> =>
  (value ? { [field]: value } : {}) as Partial<Record<K, string>>;

function loopsQuery(query: URLSearchParams): Partial<RouteOf<'loops'>> {
  const filter = query.get('filter');
  const olderThan = Number(query.get('older_than_s'));
  return {
    filter: isLoopFilter(filter) ? filter : 'all',
    ...(query.has('older_than_s') && Number.isInteger(olderThan) && olderThan >= 1 ? { olderThanS: olderThan } : {}),
    ...present('sessionId', query.get('session_id')),
    ...present('cursor', query.get('cursor')),
  };
}

/** Every view but `unknown`, by name: a view without a row does not compile. */
export const ROUTE_TABLE: { readonly [V in View]: RouteRow<V> } = {
  home: { path: [] },
  sessions: {
    path: ['sessions'],
    read: (query) => present('cursor', query.get('cursor')),
    write: (route) => ({ cursor: route.cursor }),
  },
  session: { path: ['sessions', ':sessionId'] },
  loops: {
    path: ['loops'],
    read: loopsQuery,
    write: (route) => ({
      filter: route.filter === 'all' ? undefined : route.filter,
      older_than_s: route.olderThanS,
      session_id: route.sessionId,
      cursor: route.cursor,
    }),
  },
  loop: { path: ['sessions', ':sessionId', 'loops', ':loopId'] },
  nodes: { path: ['nodes'] },
  refusals: { path: ['refusals'] },
  notification: { path: ['notifications', ':commandId'] },
};

const isField = (segment: string): boolean => segment.startsWith(':');

/** The fields `parts` gives the `:field` segments of `path`; `undefined` when it is not that path. */
function fieldsOf(path: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (path.length !== parts.length) return undefined;
  const fields: Record<string, string> = {};
  for (const [index, segment] of path.entries()) {
    if (isField(segment)) fields[segment.slice(1)] = parts[index]!;
    else if (segment !== parts[index]) return undefined;
  }
  return fields;
}

/** The view whose row's path is `parts` (decoded segments under /console), with its query read; else `undefined`. */
export function matchRoute(parts: readonly string[], query: URLSearchParams): ConsoleRoute | undefined {
  for (const [view, row] of Object.entries(ROUTE_TABLE) as [View, RouteRow][]) {
    const fields = fieldsOf(row.path, parts);
    if (fields) return { view, ...fields, ...row.read?.(query) } as ConsoleRoute;
  }
  return undefined;
}

/** The segments (encoded) and query of `route`'s address under /console, by its row. */
export function addressOf(route: RouteOf<View>): { readonly segments: string[]; readonly query: QueryEntries } {
  const row = ROUTE_TABLE[route.view] as RouteRow;
  const fields = route as unknown as Readonly<Record<string, string>>;
  return {
    segments: row.path.map((segment) => (isField(segment) ? encodeURIComponent(fields[segment.slice(1)]!) : segment)),
    query: row.write?.(route as never) ?? {},
  };
}
