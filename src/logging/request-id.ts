import type { IncomingMessage } from 'node:http';
import { UuidBatch } from './uuid-batch.js';

/**
 * Request header that carries the request id in, and back out on the response (`X-Request-Id`).
 * Lower case, as Fastify stores header names: it lower-cases every name it is given, and a name
 * already in lower case comes back as the same interned string, with no string-table lookup.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

// A client's id is kept when it is a plausible id: printable ASCII, no spaces, not too long.
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const uuids = new UuidBatch();

/**
 * The id of a request: `X-Request-Id` when the client sent a usable one, else a fresh UUID.
 * Fastify's `genReqId` (server-app.ts): the request lines and the response header use its id.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : uuids.take();
}
