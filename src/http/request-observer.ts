import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { REQUEST_ID_HEADER, requestIdOf } from '../logging/request-id.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { requestTraceOf } from '../tracing/request-trace.js';

/** The label of every request that matched no route (never its path: paths carry ids). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Status label of a request whose client went away before any answer was sent. */
export const ABORTED_STATUS = 'aborted';

// What the observer keeps on the raw request from the moment it arrives: its id, its response
// (for `onRequestAbort`, which Fastify gives the request only), when it arrived, and whether it
// was already counted and logged (an aborted one may still end its response later).
const ID = Symbol('request id');
const RESPONSE = Symbol('response');
const ARRIVED = Symbol('arrived');
const OBSERVED = Symbol('observed');
type ObservedRequest = IncomingMessage & { [ID]?: string; [RESPONSE]?: ServerResponse; [ARRIVED]?: number; [OBSERVED]?: true };

/**
 * The per-request work that needs no dependency injection, outside Nest: the `X-Request-Id`
 * header (a listener of the HTTP server's `request` event, before Fastify has the request) and,
 * once the connection is done with the request (Fastify's `onResponse`, or `onRequestAbort` for
 * a client that went away first), one JSON line at `info` (`request_id`, `method`, `route`,
 * `status`, `duration_ms`, and `trace_id` and `span_id` of its server span while tracing runs;
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

  /**
   * The HTTP server's `request` listener (server-app.ts): the request gets its id, and every
   * answer carries it (hijacked ones too). A Fastify `onRequest` hook doing this cost about 2 µs
   * of CPU per request, a tenth of a health check (docs/benchmarks.md).
   */
  readonly onRawRequest = (request: IncomingMessage, response: ServerResponse): void => {
    const observed = request as ObservedRequest;
    const id = requestIdOf(request);
    observed[ID] = id;
    observed[RESPONSE] = response;
    observed[ARRIVED] = performance.now();
    response.setHeader(REQUEST_ID_HEADER, id);
  };

  /**
   * Fastify's `genReqId`: the id {@link onRawRequest} gave the request (so the header and the
   * request line agree), or a fresh one for a request that never went through the server
   * (`inject()`).
   */
  readonly idOf = (request: IncomingMessage): string => (request as ObservedRequest)[ID] ?? requestIdOf(request);

  /** Fastify's `onResponse`: the answer was sent. */
  readonly onResponse = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    this.observe(request, reply.raw, String(reply.raw.statusCode));
    done();
  };

  /** Fastify's `onRequestAbort`: the client went away before the answer was complete. */
  readonly onRequestAbort = (request: FastifyRequest, done: () => void): void => {
    const response = (request.raw as ObservedRequest)[RESPONSE];
    if (response) this.observe(request, response, response.headersSent ? String(response.statusCode) : ABORTED_STATUS);
    done();
  };

  /**
   * Counts and logs `request`, answered on `response`, now. Also for what fails before Fastify
   * runs any hook (a path the router cannot percent-decode), from `frameworkErrors`.
   */
  observe(request: FastifyRequest, response: ServerResponse, status: string): void {
    const observed = request.raw as ObservedRequest;
    if (observed[OBSERVED]) return;
    observed[OBSERVED] = true;
    const url = request.routeOptions.url;
    // Wildcards are static files (the OpenAPI UI), never API routes.
    const route = url === undefined || url.includes('*') ? UNMATCHED_ROUTE : url;
    this.metrics.countHttpRequest(route, status);
    if (this.logs) {
      const arrived = observed[ARRIVED];
      this.logger.info(
        {
          request_id: request.id,
          method: request.method,
          route,
          status: response.statusCode,
          duration_ms: arrived === undefined ? 0 : Math.round(performance.now() - arrived),
          // While tracing runs: the request's server span (`trace_id`, `span_id`).
          ...requestTraceOf(request.raw),
        },
        'request completed',
      );
    }
  }
}
