import type { INestApplication } from '@nestjs/common';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { withSecurityHeaders } from '../console/console-site.js';
import { completeApiDocument } from './api-document-completion.js';

/** Where the OpenAPI pages are served: `/docs` (HTML), `/docs-json` and `/docs-yaml`. */
export const API_DOCS_PATH = '/docs';

function isDocsRoute(url: string): boolean {
  return url === API_DOCS_PATH || url.startsWith(`${API_DOCS_PATH}/`) || url === `${API_DOCS_PATH}-json` || url === `${API_DOCS_PATH}-yaml`;
}

// Route-level, so that no other route pays for it.
const securityHeaders: onRequestHookHandler = (_request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
  withSecurityHeaders(reply);
  done();
};

/**
 * Serves the OpenAPI document (`PN_API_DOCS=on`): the HTML page at `/docs`, JSON at `/docs-json`
 * and YAML at `/docs-yaml`, every one of them with the console's security headers (its
 * Content-Security-Policy, never framed). Call before the application is initialised.
 */
export function installApiDocs(app: INestApplication, fastify: FastifyInstance, document: Omit<OpenAPIObject, 'paths'>): void {
  // Every route the OpenAPI module registers (its page, documents and static files) gets the
  // headers: added before it registers them.
  fastify.addHook('onRoute', (route) => {
    if (!isDocsRoute(route.url)) return;
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [...own, securityHeaders];
  });
  SwaggerModule.setup(API_DOCS_PATH.slice(1), app, () => completeApiDocument(SwaggerModule.createDocument(app, document)));
}
