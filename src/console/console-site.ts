import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the console is served; every view's address starts with it. */
export const CONSOLE_PATH = '/console';

/**
 * Sent with every file of the console: scripts, styles, images and API calls from the server's
 * own origin only, nothing inline, no plugins, never framed, forms post only here.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  // A view's address carries ids: no other site is told them.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The folder `npm run build` writes the console into (`dist/console`), seen from this file
 * compiled (`dist/src/console/`) or run from source (`src/console/`, as the tests do).
 */
export function defaultConsoleRoot(): string | undefined {
  return [resolve(here, '../../console'), resolve(here, '../../dist/console')].find((root) => existsSync(join(root, 'index.html')));
}

/**
 * Sets the console's security headers (its Content-Security-Policy, no framing, no sniffing, no
 * referrer) on `reply`; the OpenAPI pages get them too (`installApiDocs`).
 */
export function withSecurityHeaders(reply: FastifyReply): FastifyReply {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
  return reply;
}

/**
 * Serves the web console (spec section 12.2) under {@link CONSOLE_PATH}: its hashed assets as
 * static files, and its one page at `/console` and at every address below it (each view has an
 * address of its own, which a bookmark or a reload asks the server for), and redirects `/` to it. The page needs no
 * authentication: it holds no data, and asks for a token before it calls the API.
 * @param root the built console (see {@link defaultConsoleRoot})
 */
export function installConsole(fastify: FastifyInstance, root: string): void {
  const index = join(root, 'index.html');
  const page = async (_request: unknown, reply: FastifyReply): Promise<void> => {
    // Read on every request: a rebuild names its assets anew, and the page is small.
    const html = await readFile(index);
    await withSecurityHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
  };
  // Registered as a plugin, not awaited: Fastify loads it with Nest's own when the app starts.
  fastify.register(async (scope) => {
    await scope.register(fastifyStatic, {
      root: join(root, 'assets'),
      prefix: `${CONSOLE_PATH}/assets/`,
      // The OpenAPI UI registers the plugin too: only one may decorate the reply.
      decorateReply: false,
      index: false,
      // File names carry a hash of their content.
      immutable: true,
      maxAge: '365d',
      setHeaders: (reply) => withSecurityHeaders(reply),
    });
    scope.get(CONSOLE_PATH, page);
    scope.get(`${CONSOLE_PATH}/*`, page);
    // A browser pointed at the server's address lands on the console (the API has nothing at `/`).
    scope.get('/', (_request, reply) => withSecurityHeaders(reply).redirect(CONSOLE_PATH, 302));
  });
}
