import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';

/** The label of every request that matched no route (never its path: paths carry ids). */
export const UNMATCHED_ROUTE = 'unmatched';

interface RouteEntry {
  readonly segments: readonly string[];
  readonly methods: ReadonlySet<string>;
}

// The template a request matched and its server's route table, kept on the raw request:
// request lines and metrics are written from the raw response's events, where Fastify's
// request object is out of reach.
const ROUTE = Symbol('route template');
const TABLE = Symbol('route table');
type RoutedRequest = IncomingMessage & { [ROUTE]?: string; [TABLE]?: readonly RouteEntry[] };

const segmentsOf = (path: string): string[] => path.replace(/\/+$/, '').split('/');

/**
 * Records every route of `fastify` as it is registered (for {@link allowedMethods}) and, on
 * each request, the route template it matched (for {@link routeOf}). Call before the routes are
 * registered, i.e. before the application is initialised.
 */
export function installRouteTable(fastify: FastifyInstance): void {
  // Filled as routes are registered.
  const table: RouteEntry[] = [];
  fastify.addHook('onRoute', (route) => {
    // Wildcards are static files (the OpenAPI UI), never API routes.
    if (route.url.includes('*')) return;
    const methods = new Set([route.method].flat());
    // A GET route answers HEAD too (Fastify exposes it).
    if (methods.has('GET')) methods.add('HEAD');
    const segments = segmentsOf(route.url);
    const same = table.find((entry) => entry.segments.join('/') === segments.join('/'));
    if (same) methods.forEach((method) => (same.methods as Set<string>).add(method));
    else table.push({ segments, methods });
  });
  fastify.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw as RoutedRequest;
    raw[TABLE] = table;
    const url = request.routeOptions.url;
    if (url !== undefined && !url.includes('*')) raw[ROUTE] = url;
    done();
  });
}

/**
 * The route template a request matched, e.g. `/v1/sessions/:sid/process-completions`;
 * {@link UNMATCHED_ROUTE} otherwise. Never a path with ids in it.
 */
export function routeOf(request: IncomingMessage): string {
  return (request as RoutedRequest)[ROUTE] ?? UNMATCHED_ROUTE;
}

// A `:name` segment of a template matches any one non-empty segment of a path.
function matches(template: readonly string[], path: readonly string[]): boolean {
  return (
    template.length === path.length && template.every((segment, i) => (segment.startsWith(':') ? path[i] !== '' : segment === path[i]))
  );
}

/**
 * The methods the routes matching the request's path answer to, sorted; empty when no route
 * has that path. A request that no route took, but whose path has routes, used the wrong method.
 */
export function allowedMethods(request: IncomingMessage): string[] {
  const table = (request as RoutedRequest)[TABLE];
  if (!table || !request.url) return [];
  const path = segmentsOf(new URL(request.url, 'http://localhost').pathname);
  const methods = new Set<string>();
  for (const route of table) if (matches(route.segments, path)) route.methods.forEach((method) => methods.add(method));
  return [...methods].sort();
}
