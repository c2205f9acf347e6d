import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { Logger } from 'pino';
import { AppModule } from './app.module.js';
import { defaultConsoleRoot, installConsole } from './console/console-site.js';
import type { ServerConfig } from './config/server-config.js';
import { ProblemDetailsFilter } from './http/problem-details.filter.js';
import { installRouteTable } from './http/route-table.js';
import { PinoNestLogger } from './logging/pino-nest-logger.js';
import { REQUEST_ID_HEADER, requestIdOf } from './logging/request-id.js';
import { RequestLoggingMiddleware } from './logging/request-logging.middleware.js';
import { createRootLogger } from './logging/root-logger.js';
import { HttpMetricsMiddleware } from './metrics/http-metrics.middleware.js';
import { MetricsService } from './metrics/metrics.service.js';

/**
 * Builds the HTTP server exactly as `main.ts` runs it: Nest on Fastify, with no body parser
 * (bodies are read strictly per route, see `JsonBody`) and the OpenAPI document at `/docs`
 * (JSON at `/docs-json`), and the web console at `/console` unless `config.console` is off. On close the server stops accepting, SSE streams end
 * (SessionEventStream), in-flight requests finish, and only then does the database close.
 * Guard and problem filter come from the module. Logs are JSON lines at `config.logLevel`
 * (through `options.logger` when given). Call `listen()` or `init()` on the result.
 */
export async function createServerApp(config: ServerConfig, options: { logger?: Logger } = {}): Promise<INestApplication> {
  const logger = options.logger ?? createRootLogger(config.logLevel);
  // What fails before Nest has the request (a path the router cannot percent-decode) is answered
  // by the same filter as everything else, as a problem document.
  const problems = new ProblemDetailsFilter();
  // Such a request never reaches a hook or middleware: once the app exists, it is given its
  // request id and goes through request logging and metrics before it is answered.
  let observeEarly: (request: FastifyRequest, reply: FastifyReply) => void = () => undefined;
  const adapter = new FastifyAdapter({
    // Request lines are RequestLoggingMiddleware's, not Fastify's.
    logger: false,
    // Every request is answered while the server drains (GracefulShutdown), never with a 503.
    return503OnClosing: false,
    genReqId: requestIdOf,
    // Routing as it was on Express: `/v1/sessions/` is `/v1/sessions`, and paths match in any case.
    routerOptions: { ignoreTrailingSlash: true, caseSensitive: false },
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      observeEarly(request, reply);
      problems.answer(error, request, reply);
    },
  });
  const fastify = adapter.getInstance();
  installRouteTable(fastify);
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  // No body is parsed before it reaches its route: `JsonBody` reads the raw stream itself, with
  // the contract's limits and errors, and a route without a body never reads one.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  // Buffered until the JSON logger takes over, so even Nest's start-up lines are JSON.
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, logger), adapter, {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(new PinoNestLogger(logger));
  const early = [new RequestLoggingMiddleware(logger), new HttpMetricsMiddleware(app.get(MetricsService))];
  observeEarly = (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    // Where middie would have put it for the middleware.
    Object.assign(request.raw, { id: request.id });
    for (const middleware of early) middleware.use(request.raw, reply.raw, () => undefined);
  };
  if (config.console) {
    const consoleRoot = defaultConsoleRoot();
    if (consoleRoot) installConsole(fastify, consoleRoot);
    else logger.warn('The console is not built (npm run build builds it): /console answers 404');
  }
  const document = new DocumentBuilder()
    .setTitle('Process notifications')
    .setDescription(
      'Durable, journal-first delivery of process completion notifications to agent loops. Errors are RFC 9457 problem documents.',
    )
    .setVersion('1')
    // Opaque random tokens, not JWTs.
    .addSecurity('bearer', {
      type: 'http',
      scheme: 'bearer',
      description: 'The admin token (PN_ADMIN_TOKEN) or a session token returned once by POST /v1/sessions.',
    })
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, document));
  return app;
}
