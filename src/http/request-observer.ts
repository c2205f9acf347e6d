import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { foreignRequestIdOf, REQUEST_ID_HEADER } from '../logging/request-id.js';
import { requestTraceOf } from '../tracing/request-trace.js';
import { HttpProblemError } from './http-problem.error.js';
import { FORWARDED_HEADER, FORWARDING_REQUEST_ID_HEADER } from './node-headers.js';

/** The label of every request that matched no route (never its path: paths carry ids). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Status label of a request whose client went away before any answer was sent. */
export const ABORTED_STATUS = 'aborted';

/** Answers a refused request as a problem document (the problem filter's `answer`). */
export type ProblemAnswer = (error: unknown, request: FastifyRequest, reply: FastifyReply) => void;

const SLASH = 0x2f;

/**
 * The per-request work that needs no dependency injection, as one Fastify `onRequest` hook
 * rather than Nest middleware. First, a request target that is not a path (absolute-form
 * `http://host/...`, or `*`) is refused with `400 invalid_request_target`, before anything else
 * (routing on it, forwarding it) happens. Then the `X-Request-Id` header (the client's own id
 * echoed when it sent a plausible one, else the server's), on every answer
 * `Cache-Control: no-store` and `X-Content-Type-Options: nosniff` (the console's page and its
 * hashed assets say their own `Cache-Control` over it), and, once the response is
 * closed (sent, or its client went away first), one JSON line at `info` (`request_id`, the
 * server's own, `method`, `route`, `status`, `duration_ms`; `client_request_id` when the client
 * sent an `X-Request-Id`, `forwarded_request_id` when another node forwarded the request; and
 * `trace_id` and `span_id` of its server span while tracing runs; never headers, query strings or
 * bodies) and `pn_http_requests_total` by route template and status. Failures of authentication,
 * routing and body parsing are included, which an interceptor would not see. The route is the template the request matched
 * (`/v1/sessions/:sid/loops`), {@link UNMATCHED_ROUTE} otherwise; the status is
 * {@link ABORTED_STATUS} for a client that went away before any answer was sent.
 */
/**
 * Where the observer counts answered requests (the metrics service): declared here, so the HTTP
 * edge does not import the metrics folder, which builds on it.
 */
export interface HttpRequestCounter {
  countHttpRequest(route: string, status: string): void;
}

export class RequestObserver {
  private readonly logs: boolean;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: HttpRequestCounter,
    private readonly refuse: ProblemAnswer,
  ) {
    // Costs nothing below `info`.
    this.logs = logger.isLevelEnabled('info');
  }

  /**
   * Fastify's `onRequest`, and `frameworkErrors` for what fails before Fastify runs any hook (a
   * path the router cannot percent-decode): the request id goes out on every answer
   * (`X-Request-Id`), and the request is counted and logged when its response closes. A request
   * whose target is not a path is answered here (`done` is not called).
   */
  readonly onRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const url = request.raw.url ?? '';
    reply.header(REQUEST_ID_HEADER, foreignRequestIdOf(request.raw.headers, REQUEST_ID_HEADER) ?? request.id);
    // No answer is for a shared cache, nor to be read as another media type: `/healthz`,
    // `/metrics` and a 404 or 405 anywhere included (issue 48). What may be cached (the console's
    // page and assets) sets its own Cache-Control, later, over this one.
    reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff');
    // One listener of the response's own `close`, which comes once whether the answer was sent or
    // its client went away (an `onRequestAbort` hook would add a listener of Fastify's to every
    // request as well). `on`, not `once`: nothing emits on a closed response, and `once` costs a
    // wrapper and a removal per request.
    const started = performance.now();
    reply.raw.on('close', () => this.observe(request, reply.raw, performance.now() - started));
    // Origin-form only (RFC 9112 section 3.2.1): a target naming a host is a proxy's request, and
    // this server is no proxy. One character tells.
    if (url.charCodeAt(0) !== SLASH) {
      this.refuse(new HttpProblemError('invalid_request_target', 'The request target must be a path (origin-form, /...).'), request, reply);
      return;
    }
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
          // Ids others made, each in a field of its own: the client's, and a forwarding node's.
          ...foreignIdsOf(request),
          // While tracing runs: the request's server span (`trace_id`, `span_id`).
          ...requestTraceOf(request.raw),
        },
        'request completed',
      );
    }
  }
}

// The fields of the request line for the ids others made: none in the common case (no object).
function foreignIdsOf(request: FastifyRequest): { client_request_id?: string; forwarded_request_id?: string } | undefined {
  const headers = request.raw.headers;
  const client = foreignRequestIdOf(headers, REQUEST_ID_HEADER);
  // Only beside the forwarding header, which only a forwarding node sets on what it sends (it
  // never passes a client's on); even then it is a field of its own, never the line's id.
  const forwarded = headers[FORWARDED_HEADER] === undefined ? undefined : foreignRequestIdOf(headers, FORWARDING_REQUEST_ID_HEADER);
  if (client === undefined && forwarded === undefined) return undefined;
  return {
    ...(client === undefined ? {} : { client_request_id: client }),
    ...(forwarded === undefined ? {} : { forwarded_request_id: forwarded }),
  };
}
