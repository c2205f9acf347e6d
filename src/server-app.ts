import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DocumentBuilder } from '@nestjs/swagger';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import type { Logger } from 'pino';
import { AppModule } from './app.module.js';
import { defaultConsoleRoot, installConsole } from './console/console-site.js';
import type { ServerConfig } from './config/server-config.js';
import { installApiDocs } from './docs/api-docs.js';
import { API_TAGS } from './docs/api-tags.js';
import { ProblemDetailsFilter } from './http/problem-details.filter.js';
import { installRouteTable } from './http/route-table.js';
import { OwnerForwarding } from './cluster/owner-forwarding.service.js';
import { RequestObserver } from './http/request-observer.js';
import { PinoNestLogger } from './logging/pino-nest-logger.js';
import { newRequestId } from './logging/request-id.js';
import { createRootLogger } from './logging/root-logger.js';
import { MetricsService } from './metrics/metrics.service.js';

/**
 * Builds the HTTP server exactly as `main.ts` runs it: Nest on Fastify, with no body parser
 * (bodies are read strictly per route, see `JsonBody`), the OpenAPI document at `/docs` (JSON at
 * `/docs-json`, YAML at `/docs-yaml`) when `config.apiDocs` is on, and the web console at
 * `/console` unless `config.console` is off. On close the server stops accepting, SSE streams end
 * (SessionEventStream), in-flight requests finish, and only then does the database close.
 * Guard and problem filter come from the module. Logs are JSON lines at `config.logLevel`
 * (through `options.logger` when given). Call `listen()` or `init()` on the result.
 */
export async function createServerApp(config: ServerConfig, options: { logger?: Logger } = {}): Promise<INestApplication> {
  const logger = options.logger ?? createRootLogger(config.logLevel);
  // What fails before Nest has the request (a path the router cannot percent-decode) is answered
  // by the same filter as everything else, as a problem document.
  const problems = new ProblemDetailsFilter();
  // Such a request never reaches a hook: once the app exists, it is given its request id and
  // counted and logged like any other.
  const early: { observer?: RequestObserver } = {};
  const adapter = new FastifyAdapter({
    // Request lines are RequestObserver's, not Fastify's.
    logger: false,
    // Every request is answered while the server drains (GracefulShutdown), never with a 503.
    return503OnClosing: false,
    // Always the server's own: a client's X-Request-Id is logged apart (RequestObserver).
    genReqId: newRequestId,
    // Routing as it was on Express: `/v1/sessions/` is `/v1/sessions`, and paths match in any case.
    routerOptions: { ignoreTrailingSlash: true, caseSensitive: false },
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      early.observer?.onRequest(request, reply, () => undefined);
      // Unless the observer refused the request target already.
      if (!reply.sent) problems.answer(error, request, reply);
    },
  });
  const fastify = adapter.getInstance();
  installRouteTable(fastify);
  // No body is parsed before it reaches its route: `JsonBody` reads the raw stream itself, with
  // the contract's limits and errors, and a route without a body never reads one.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  // The JSON logger from the first line on, so even Nest's start-up lines (and the error of a
  // start that fails) are JSON.
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, logger), adapter, {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
    // A module that cannot start (a schema newer than this release, the migration lock) rejects
    // here, so the caller ends the process with its one fatal JSON line, not Nest's own exit.
    abortOnError: false,
  });
  app.useLogger(new PinoNestLogger(logger));
  // Per-request work that needs no dependency injection runs as Fastify hooks, not as Nest
  // middleware (which Fastify runs through middie): added before `init()` registers the routes,
  // so every route and the not-found handler run them. Forwarding comes after the request id
  // and the request-target check (RequestObserver answers a target that is not a path itself).
  const observer = (early.observer = new RequestObserver(logger, app.get(MetricsService), (error, request, reply) =>
    problems.answer(error, request, reply),
  ));
  fastify.addHook('onRequest', observer.onRequest);
  // SQLite serves one process: no other node owns anything, so no request pays for the hook
  // (an async hook is one more promise and microtask per request).
  if (app.get(ProcessNotificationsService).sharesDatabase) {
    const forwarding = app.get(OwnerForwarding);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply) => forwarding.onRequest(request, reply));
  }
  if (config.console) {
    const consoleRoot = defaultConsoleRoot();
    if (consoleRoot) installConsole(fastify, consoleRoot);
    else logger.warn('The console is not built (npm run build builds it): /console answers 404');
  }
  if (!config.apiDocs) return app;
  const builder = new DocumentBuilder()
    .setTitle('Process notifications')
    .setDescription(
      'Durable, journal-first delivery of process completion notifications to agent loops. Errors are RFC 9457 problem documents.',
    )
    .setVersion('1')
    // Relative: the document describes the server that serves it.
    .addServer('/')
    // Opaque random tokens, not JWTs.
    .addSecurity('bearer', {
      type: 'http',
      scheme: 'bearer',
      description: 'The admin token (PN_ADMIN_TOKEN) or a session token returned once by POST /v1/sessions.',
    });
  for (const tag of Object.values(API_TAGS)) builder.addTag(tag.name, tag.description);
  const built = builder.build();
  // Whoever runs this server answers for it; the package is not licensed to anyone (package.json).
  const document = {
    ...built,
    info: { ...built.info, contact: { name: 'The operators of this server' }, license: { name: 'UNLICENSED' } },
  };
  installApiDocs(app, fastify, document);
  return app;
}
