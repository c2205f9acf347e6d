/*
 * Every view of the console has an address under /console (spec section 12.2): it carries ids,
 * a filter or a page cursor, never the token. Pure functions, so the round trip is unit-tested.
 */
import { LOOP_FILTERS, type LoopFilter } from 'process-notifications-contract';

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

const isLoopFilter = (value: string | null): value is LoopFilter => (LOOP_FILTERS as readonly (string | null)[]).includes(value);

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The view at `pathname` (with its query `search`); an address it does not know is `unknown`. */
export function parseRoute(pathname: string, search = ''): ConsoleRoute {
  const query = new URLSearchParams(search);
  const lower = pathname.toLowerCase();
  if (lower !== CONSOLE_BASE && !lower.startsWith(`${CONSOLE_BASE}/`)) return { view: 'unknown', path: pathname };
  const raw = pathname.slice(CONSOLE_BASE.length).split('/').filter(Boolean);
  const parts = raw.map(decoded);
  if (parts.some((part) => part === undefined)) return { view: 'unknown', path: pathname };
  const [first, second, third, fourth, ...rest] = parts as string[];
  const cursor = query.get('cursor') || undefined;
  if (first === undefined) return { view: 'home' };
  if (rest.length === 0) {
    if (first === 'sessions' && second === undefined) return cursor ? { view: 'sessions', cursor } : { view: 'sessions' };
    if (first === 'sessions' && second !== undefined && third === undefined) return { view: 'session', sessionId: second };
    if (first === 'sessions' && second !== undefined && third === 'loops' && fourth !== undefined) {
      return { view: 'loop', sessionId: second, loopId: fourth };
    }
    if (first === 'loops' && second === undefined) {
      const filterParam = query.get('filter');
      const olderThan = Number(query.get('older_than_s'));
      const sessionId = query.get('session_id') || undefined;
      return {
        view: 'loops',
        filter: isLoopFilter(filterParam) ? filterParam : 'all',
        ...(query.has('older_than_s') && Number.isInteger(olderThan) && olderThan >= 1 ? { olderThanS: olderThan } : {}),
        ...(sessionId ? { sessionId } : {}),
        ...(cursor ? { cursor } : {}),
      };
    }
    if (first === 'nodes' && second === undefined) return { view: 'nodes' };
    if (first === 'refusals' && second === undefined) return { view: 'refusals' };
    if (first === 'notifications' && second !== undefined && third === undefined) return { view: 'notification', commandId: second };
  }
  return { view: 'unknown', path: pathname };
}

const segment = encodeURIComponent;

function withQuery(path: string, entries: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(entries)) if (value !== undefined) query.set(name, String(value));
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

/** The address of a view: what {@link parseRoute} reads back as the same view. */
export function routeHref(route: ConsoleRoute): string {
  switch (route.view) {
    case 'home':
      return CONSOLE_BASE;
    case 'sessions':
      return withQuery(`${CONSOLE_BASE}/sessions`, { cursor: route.cursor });
    case 'session':
      return `${CONSOLE_BASE}/sessions/${segment(route.sessionId)}`;
    case 'loops':
      return withQuery(`${CONSOLE_BASE}/loops`, {
        filter: route.filter === 'all' ? undefined : route.filter,
        older_than_s: route.olderThanS,
        session_id: route.sessionId,
        cursor: route.cursor,
      });
    case 'loop':
      return `${CONSOLE_BASE}/sessions/${segment(route.sessionId)}/loops/${segment(route.loopId)}`;
    case 'nodes':
      return `${CONSOLE_BASE}/nodes`;
    case 'refusals':
      return `${CONSOLE_BASE}/refusals`;
    case 'notification':
      return `${CONSOLE_BASE}/notifications/${segment(route.commandId)}`;
    case 'unknown':
      return route.path;
  }
}
