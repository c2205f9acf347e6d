import type { IncomingMessage } from 'node:http';

/** The label of every request that matched no route (never its path: paths carry ids). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route template a request matched, e.g. `/v1/sessions/:sid/process-completions`, once
 * Express has routed it; {@link UNMATCHED_ROUTE} otherwise. Never a path with ids in it.
 */
export function routeOf(request: IncomingMessage): string {
  const route = (request as IncomingMessage & { route?: { path?: unknown } }).route;
  // A wildcard is the catch-all that middleware is mounted on (`{/*splat}`), never an API route.
  return typeof route?.path === 'string' && !route.path.includes('*') ? route.path : UNMATCHED_ROUTE;
}
