/** One request of the client's JSON calls, as a transport sends it. */
export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  /** The absolute URL. */
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The serialized JSON body, if any. */
  readonly body?: string;
  /** The caller's signal: aborting it aborts the request. */
  readonly signal?: AbortSignal;
  /** No answer after this long is a failure (thrown with `name: 'TimeoutError'`). */
  readonly timeoutMs: number;
}

/** What the client reads of an answer: its status, a header, and its whole body as text. */
export interface HttpAnswer {
  readonly status: number;
  /** A response header by name (any case), or null. */
  header(name: string): string | null;
  text(): Promise<string>;
}

/**
 * Sends one request of the client's JSON calls (not its event streams, which use `fetch`). Rejects
 * when no answer came; any answer, an error status included, resolves.
 */
export type HttpTransport = (request: HttpRequest) => Promise<HttpAnswer>;

// The transport the client uses when it is given no `fetch` and no `transport`: `fetch`, unless
// an entry point of the package replaced it (index.node.ts, with a keep-alive connection pool).
let defaultTransport: HttpTransport | undefined;

/** Sets the transport of clients built without `fetch` or `transport` (the package's Node entry point does). */
export function setDefaultTransport(transport: HttpTransport): void {
  defaultTransport = transport;
}

/** The transport of clients built without `fetch` or `transport`. */
export function getDefaultTransport(): HttpTransport {
  return (defaultTransport ??= fetchTransport((input, init) => globalThis.fetch(input, init)));
}

/** A transport over a `fetch` function: what browsers have (and what an injected `fetch` gets). */
export function fetchTransport(fetchFn: typeof fetch): HttpTransport {
  return async ({ method, url, headers, body, signal, timeoutMs }) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetchFn(url, { method, headers, body, signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
    return { status: response.status, header: (name) => response.headers.get(name), text: () => response.text() };
  };
}
