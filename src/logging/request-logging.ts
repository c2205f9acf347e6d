import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Options } from 'pino-http';
import { routeOf } from '../http/route-table.js';

/** Request header that carries the request id in, and back out on the response. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

// A client's id is kept when it is a plausible id: printable ASCII, no spaces, not too long.
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The id of a request: `X-Request-Id` when the client sent a usable one, else a fresh UUID.
 * Fastify's `genReqId` (server-app.ts): the request lines and the response header use its id.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

// What a request line says: never headers, query strings or bodies (tokens, payloads).
function requestLine(request: IncomingMessage, response: ServerResponse, durationMs: number): Record<string, unknown> {
  return { method: request.method, route: routeOf(request), status: response.statusCode, duration_ms: durationMs };
}

/**
 * pino-http options for one JSON line per request at `info`, when the response is done:
 * `request_id`, `method`, `route` (the template, not the path), `status` and `duration_ms`.
 * The request id is the one {@link requestIdOf} gave, echoed in the response's `X-Request-Id`
 * (server-app.ts). Logs written while a request is handled carry its `request_id` too.
 */
export function requestLoggingOptions(logger: Logger): Options {
  return {
    logger,
    // Fastify has given every request its id already (requestIdOf); pino-http keeps it.
    customAttributeKeys: { reqId: 'request_id' },
    quietReqLogger: true,
    quietResLogger: true,
    customLogLevel: () => 'info',
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request completed',
    customSuccessObject: (request, response, values: { responseTime: number }) => requestLine(request, response, values.responseTime),
    customErrorObject: (request, response, _error, values: { responseTime: number }) => requestLine(request, response, values.responseTime),
  };
}
