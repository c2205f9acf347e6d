import { DEFAULT_MAX_ANSWER_BYTES } from './answer-limits.js';
import { readAnswerText } from './answer-body.reader.js';

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
  /**
   * The whole exchange (connecting, sending, the status and headers, and the whole body) taking
   * longer than this is a failure (thrown with `name: 'TimeoutError'`): a server trickling its
   * answer a byte at a time does not hold the call beyond it.
   */
  readonly timeoutMs: number;
  /**
   * Most bytes of the answer's body the transport reads: past them it stops reading, drops the
   * connection and rejects with a `BadAnswerError` `answer_too_large`. @default DEFAULT_MAX_ANSWER_BYTES
   */
  readonly maxAnswerBytes?: number;
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
 * when no answer came, or came too late (`timeoutMs`), or is larger than `maxAnswerBytes`; any
 * other answer, an error status included, resolves. It never throws outside the promise it returns.
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
  return async ({ method, url, headers, body, signal, timeoutMs, maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES }) => {
    // One signal for the whole exchange: it aborts the body's reading too, not only the wait for headers.
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetchFn(url, { method, headers, body, signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
    // Read here, bounded, not left to `response.text()`, which reads whatever comes.
    const text = await readAnswerText(response, url, maxAnswerBytes);
    return { status: response.status, header: (name) => response.headers.get(name), text: () => Promise.resolve(text) };
  };
}
