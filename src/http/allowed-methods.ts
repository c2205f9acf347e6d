import type { IncomingMessage } from 'node:http';

interface RouteEntry {
  readonly segments: readonly string[];
  readonly methods: readonly string[];
}

// What Express 5's router reports of itself (its public `listRoutes()`).
interface ExpressApp {
  readonly router?: { listRoutes?(): Array<{ path: unknown; methods?: string[] }> };
}

// One table per application, built on first use: by then every route is registered.
const tables = new WeakMap<object, readonly RouteEntry[]>();

const segmentsOf = (path: string): string[] => path.replace(/\/+$/, '').split('/');

function tableOf(app: ExpressApp): readonly RouteEntry[] {
  let table = tables.get(app);
  if (!table) {
    table = (app.router?.listRoutes?.() ?? []).flatMap((route) =>
      typeof route.path === 'string' && route.methods
        ? [{ segments: segmentsOf(route.path), methods: route.methods.filter((method) => method !== '*') }]
        : [],
    );
    tables.set(app, table);
  }
  return table;
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
  const app = (request as IncomingMessage & { app?: ExpressApp }).app;
  if (!app || !request.url) return [];
  const path = segmentsOf(new URL(request.url, 'http://localhost').pathname);
  const methods = new Set<string>();
  for (const route of tableOf(app)) if (matches(route.segments, path)) route.methods.forEach((method) => methods.add(method));
  return [...methods].sort();
}
