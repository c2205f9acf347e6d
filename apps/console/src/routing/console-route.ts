/*
 * Every view of the console has an address under /console (spec section 12.2): it carries ids,
 * a filter or a page cursor, never the token. Pure functions, so the round trip is unit-tested.
 */
import { LOOP_FILTERS, type LoopFilter } from 'process-notifications-contract';
import { addressOf, matchRoute, type QueryEntries } from './route-table.js';

/** Where the server serves the console. */
export const CONSOLE_BASE = '/console';

// The filters of `GET /v1/admin/loops` (spec section 12.1), offered in the contract's order.
export { LOOP_FILTERS, type LoopFilter };

/** One view and what it shows. */
export type ConsoleRoute =
  | { readonly view: 'home' }
  | { readonly view: 'sessions'; readonly cursor?: string }
  | { readonly view: 'session'; readonly sessionId: string }
  | {
      readonly view: 'loops';
      readonly filter: LoopFilter;
      readonly olderThanS?: number;
      readonly sessionId?: string;
      readonly cursor?: string;
    }
  | { readonly view: 'loop'; readonly sessionId: string; readonly loopId: string }
  | { readonly view: 'nodes' }
  | { readonly view: 'refusals' }
  | { readonly view: 'notification'; readonly commandId: string }
  | { readonly view: 'unknown'; readonly path: string };

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The decoded segments of a path under {@link CONSOLE_BASE}, empty ones left out; `undefined` elsewhere or undecodable. */
function consoleSegments(pathname: string): string[] | undefined {
  const lower = pathname.toLowerCase();
  if (lower !== CONSOLE_BASE && !lower.startsWith(`${CONSOLE_BASE}/`)) return undefined;
  const parts = pathname.slice(CONSOLE_BASE.length).split('/').filter(Boolean).map(decoded);
  return parts.every((part) => part !== undefined) ? (parts as string[]) : undefined;
}

/** The view at `pathname` (with its query `search`), by the route table; an address it does not know is `unknown`. */
export function parseRoute(pathname: string, search = ''): ConsoleRoute {
  const parts = consoleSegments(pathname);
  return (parts && matchRoute(parts, new URLSearchParams(search))) ?? { view: 'unknown', path: pathname };
}

function withQuery(path: string, entries: QueryEntries): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(entries)) if (value !== undefined) query.set(name, String(value));
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

/** The address of a view, by the route table: what {@link parseRoute} reads back as the same view. */
export function routeHref(route: ConsoleRoute): string {
  if (route.view === 'unknown') return route.path;
  const { segments, query } = addressOf(route);
  return withQuery([CONSOLE_BASE, ...segments].join('/'), query);
}
