import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { REQUEST_ID_HEADER } from '../logging/request-id.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { requestTraceOf } from '../tracing/request-trace.js';

/** The label of every request that matched no route (never its path: paths carry ids). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Status label of a request whose client went away before any answer was sent. */
export const ABORTED_STATUS = 'aborted';

// A request already counted and logged (an aborted one may still end its response later), and
// its reply, for `onRequestAbort`, which Fastify gives the request only.
const OBSERVED = Symbol('observed');
const REPLY = Symbol('reply');
type ObservedRequest = FastifyRequest & { [OBSERVED]?: true; [REPLY]?: FastifyReply };

/**
 * The per-request work that needs no dependency injection, as Fastify hooks rather than Nest
 * middleware: the `X-Request-Id` header (`onRequest`) and, once the connection is done with the
 * request (`onResponse`, or `onRequestAbort` for a client that went away first), one JSON line at `info` (`request_id`, `method`, `route`, `status`, `duration_ms`, and
 * `trace_id` and `span_id` of its server span while tracing runs;
 * never headers, query strings or bodies) and `pn_http_requests_total` by route template and
 * status. Failures of authentication, routing and body parsing are included, which an
 * interceptor would not see. The route is the template the request matched
 * (`/v1/sessions/:sid/loops`), {@link UNMATCHED_ROUTE} otherwise.
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

  /** Fastify's `onRequest`: the request id goes out on every answer (`X-Request-Id`). */
  readonly onRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    (request as ObservedRequest)[REPLY] = reply;
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  };

  /** Fastify's `onResponse`: the answer was sent. */
  readonly onResponse = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    this.observe(request, reply, String(reply.raw.statusCode));
    done();
  };

  /** Fastify's `onRequestAbort`: the client went away before the answer was complete. */
  readonly onRequestAbort = (request: FastifyRequest, done: () => void): void => {
    const reply = (request as ObservedRequest)[REPLY];
    if (reply) this.observe(request, reply, reply.raw.headersSent ? String(reply.raw.statusCode) : ABORTED_STATUS);
    done();
  };

  /**
   * Counts and logs `request` now. Also for what fails before Fastify runs any hook (a path the
   * router cannot percent-decode), from `frameworkErrors`.
   */
  observe(request: FastifyRequest, reply: FastifyReply, status: string): void {
    const observed = request as ObservedRequest;
    if (observed[OBSERVED]) return;
    observed[OBSERVED] = true;
    const url = request.routeOptions.url;
    // Wildcards are static files (the OpenAPI UI), never API routes.
    const route = url === undefined || url.includes('*') ? UNMATCHED_ROUTE : url;
    this.metrics.countHttpRequest(route, status);
    if (this.logs) {
      this.logger.info(
        {
          request_id: request.id,
          method: request.method,
          route,
          status: reply.raw.statusCode,
          duration_ms: Math.round(reply.elapsedTime),
          // While tracing runs: the request's server span (`trace_id`, `span_id`).
          ...requestTraceOf(request.raw),
        },
        'request completed',
      );
    }
  }
}
