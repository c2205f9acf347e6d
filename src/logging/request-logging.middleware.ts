import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { routeOf } from '../http/route-table.js';
import { requestTraceOf } from '../tracing/request-trace.js';
import { ROOT_LOGGER } from './root-logger.js';

/**
 * One JSON line per request at `info`, once the connection is done with it (answered, or the
 * client went away): `request_id` (Fastify's request id, see `requestIdOf`), `method`, `route`
 * (the template, never the path: paths carry ids), `status`, `duration_ms` and, while tracing
 * runs, `trace_id` and `span_id` of the request's server span. Never headers,
 * query strings or bodies (tokens, payloads). Costs nothing below `info`.
 */
@Injectable()
export class RequestLoggingMiddleware implements NestMiddleware {
  constructor(@Inject(ROOT_LOGGER) private readonly logger: Logger) {}

  use(request: IncomingMessage & { id?: string }, response: ServerResponse, next: () => void): void {
    if (this.logger.isLevelEnabled('info')) {
      const started = performance.now();
      response.once('close', () => {
        this.logger.info(
          {
            request_id: request.id,
            method: request.method,
            route: routeOf(request),
            status: response.statusCode,
            duration_ms: Math.round(performance.now() - started),
            // The request's server span, while tracing runs.
            ...requestTraceOf(request),
          },
          'request completed',
        );
      });
    }
    next();
  }
}
