/**
 * No answer from the server: the connection failed or was cut, or the request timed out.
 * Always retryable; the request may or may not have reached the server.
 */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  /** Wraps what `fetch` threw, with the most specific message it carries (e.g. `ECONNREFUSED`). */
  static from(error: unknown, url: string): NetworkError {
    // Duck-typed, not instanceof: errors from undici may come from another realm.
    type Failure = { name?: unknown; code?: unknown; message?: unknown; cause?: Failure } | undefined;
    const outer = error as Failure;
    if (outer?.name === 'TimeoutError') return new NetworkError(`no answer from ${url} in time`, { cause: error });
    const inner = outer?.cause ?? outer;
    const what = typeof inner?.code === 'string' ? inner.code : typeof inner?.message === 'string' ? inner.message : String(error);
    return new NetworkError(`cannot reach ${url} (${what})`, { cause: error });
  }
}
