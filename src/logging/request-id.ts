import type { IncomingHttpHeaders } from 'node:http';
import { UuidBatch } from './uuid-batch.js';

/**
 * Request header that carries a client's request id in, and the request id back out on the
 * response (`X-Request-Id`). Lower case, as Fastify stores header names: it lower-cases every name
 * it is given, and a name already in lower case comes back as the same interned string, with no
 * string-table lookup.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

// A client's id is kept when it is a plausible id: printable ASCII, no spaces, not too long.
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const uuids = new UuidBatch();

/**
 * The server's own id of a request: always a fresh UUID, whatever the request's headers say, so
 * that no client (and no caller posing as a node) can make a log line carry another request's id.
 * Fastify's `genReqId` (server-app.ts): `request_id` of the request line is this id.
 */
export function newRequestId(): string {
  return uuids.take();
}

/**
 * A request id someone else made, read from `header`: the client's `X-Request-Id`, or the id a
 * forwarding node sends of its own. Kept only when it is a plausible id (1 to 128 printable ASCII
 * characters, no spaces), else `undefined`; it is logged in a field of its own, never as the
 * server's `request_id`.
 */
export function foreignRequestIdOf(headers: IncomingHttpHeaders, header: string): string | undefined {
  const given = headers[header];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : undefined;
}
