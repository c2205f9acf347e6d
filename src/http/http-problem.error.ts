/** Codes of the failures the HTTP layer detects itself (the library's errors carry their own). */
export type HttpProblemCode =
  | 'invalid_json'
  // A request target that is not a path (absolute-form `http://host/...`, or `*`).
  | 'invalid_request_target'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'stream_limit_reached'
  // This node is shutting down (`/healthz`): its journal is going away.
  | 'journal_unavailable';

/**
 * A request the HTTP layer refuses before the library sees it (authentication, body parsing).
 * The problem filter turns it into an RFC 9457 document like any library error.
 */
export class HttpProblemError extends Error {
  constructor(
    readonly code: HttpProblemCode,
    message: string,
  ) {
    super(message);
    this.name = 'HttpProblemError';
  }
}
