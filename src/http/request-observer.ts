import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { REQUEST_ID_HEADER } from '../logging/request-id.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { requestTraceOf } from '../tracing/request-trace.js';

/** The label of every request that matched no route (never its path: paths carry ids). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Status label of a request whose client went away before any answer was sent. */
export const ABORTED_STATUS = 'aborted';

/**
 * The per-request work that needs no dependency injection, as one Fastify `onRequest` hook
 * rather than Nest middleware: the `X-Request-Id` header and, once the response is closed (sent,
 * or its client went away first), one JSON line at `info` (`request_id`, `method`, `route`,
 * `status`, `duration_ms`, and `trace_id` and `span_id` of its server span while tracing runs;
 * never headers, query strings or bodies) and `pn_http_requests_total` by route template and
 * status. Failures of authentication, routing and body parsing are included, which an
 * interceptor would not see. The route is the template the request matched
 * (`/v1/sessions/:sid/loops`), {@link UNMATCHED_ROUTE} otherwise; the status is
 * {@link ABORTED_STATUS} for a client that went away before any answer was sent.
 */
export class RequestObserver {
  private readonly logs: boolean;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: MetricsService,
  ) {
    // Costs nothing below `info`.
    this.logs = logger.isLevelEnabled('info');
  }

  /**
   * Fastify's `onRequest`, and `frameworkErrors` for what fails before Fastify runs any hook (a
   * path the router cannot percent-decode): the request id goes out on every answer
   * (`X-Request-Id`), and the request is counted and logged when its response closes.
   */
  readonly onRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    reply.header(REQUEST_ID_HEADER, request.id);
    // One listener of the response's own `close`, which comes once whether the answer was sent or
    // its client went away (an `onRequestAbort` hook would add a listener of Fastify's to every
    // request as well). `on`, not `once`: nothing emits on a closed response, and `once` costs a
    // wrapper and a removal per request.
    const started = performance.now();
    reply.raw.on('close', () => this.observe(request, reply.raw, performance.now() - started));
    done();
  };

  private observe(request: FastifyRequest, response: ServerResponse, durationMs: number): void {
    const url = request.routeOptions.url;
    // Wildcards are static files (the OpenAPI UI), never API routes.
    const route = url === undefined || url.includes('*') ? UNMATCHED_ROUTE : url;
    // Closed before it was sent: the client went away (once headers are out, the status stands).
    const answered = response.headersSent;
    this.metrics.countHttpRequest(route, answered ? String(response.statusCode) : ABORTED_STATUS);
    if (this.logs) {
      this.logger.info(
        {
          request_id: request.id,
          method: request.method,
          route,
          status: answered ? response.statusCode : ABORTED_STATUS,
          duration_ms: Math.round(durationMs),
          // While tracing runs: the request's server span (`trace_id`, `span_id`).
          ...requestTraceOf(request.raw),
        },
        'request completed',
      );
    }
  }
}
