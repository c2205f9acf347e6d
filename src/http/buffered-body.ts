import type { IncomingMessage } from 'node:http';

/** A body that was over the limit: it was drained, not kept. */
export const BODY_TOO_LARGE = Symbol('BODY_TOO_LARGE');

// Bodies read before routing (to forward them), for the route's own body reading if the request
// is answered here after all.
const bodies = new WeakMap<IncomingMessage, Buffer | typeof BODY_TOO_LARGE>();

export function keepBody(request: IncomingMessage, body: Buffer | typeof BODY_TOO_LARGE): void {
  bodies.set(request, body);
}

/** The body read before routing, if it was. */
export function bufferedBody(request: IncomingMessage): Buffer | typeof BODY_TOO_LARGE | undefined {
  return bodies.get(request);
}
