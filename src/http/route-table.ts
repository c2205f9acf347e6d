import type { FastifyInstance, FastifyRequest } from 'fastify';

interface RouteEntry {
  readonly segments: readonly string[];
  readonly methods: ReadonlySet<string>;
}

// The server's route table, a decoration of the Fastify instance (and so of every context in it).
const TABLE = Symbol('route table');
type WithTable = FastifyInstance & { [TABLE]?: readonly RouteEntry[] };

const segmentsOf = (path: string): string[] => path.replace(/\/+$/, '').split('/');

/**
 * Records every route of `fastify` as it is registered, for {@link allowedMethods}. Call before
 * the routes are registered, i.e. before the application is initialised. Costs nothing per request.
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
  fastify.decorate(TABLE, table);
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
export function allowedMethods(request: FastifyRequest): string[] {
  const table = (request.server as WithTable)[TABLE];
  if (!table || !request.url) return [];
  const path = segmentsOf(new URL(request.url, 'http://localhost').pathname);
  const methods = new Set<string>();
  for (const route of table) if (matches(route.segments, path)) route.methods.forEach((method) => methods.add(method));
  return [...methods].sort();
}
