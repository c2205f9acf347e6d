import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { DEFAULT_MAX_ANSWER_BYTES } from './answer-limits.js';
import { BadAnswerError } from './bad-answer.error.js';
import type { HttpAnswer, HttpRequest, HttpTransport } from './http-transport.js';

/** Settings of {@link nodeHttpTransport}. */
export interface NodeHttpTransportOptions {
  /** Most connections open to one server at once. @default 256 */
  readonly maxSockets?: number;
}

function timeoutError(timeoutMs: number): Error {
  return Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' });
}

/**
 * The client's transport in Node (issue 37): `node:http` / `node:https` with a keep-alive
 * connection pool, so a client in one process keeps up with the server: about twice what `fetch`
 * (undici) sends from one process with 64 requests in flight, measured in docs/benchmarks.md.
 * Idle pooled connections do not keep the process alive. The package's Node entry point makes it
 * the default; pass it as `transport` to choose it explicitly.
 */
export function nodeHttpTransport(options: NodeHttpTransportOptions = {}): HttpTransport {
  const maxSockets = options.maxSockets ?? 256;
  const agents = { http: new HttpAgent({ keepAlive: true, maxSockets }), https: new HttpsAgent({ keepAlive: true, maxSockets }) };
  return ({ method, url, headers, body, signal, timeoutMs, maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES }: HttpRequest) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const secure = url.startsWith('https:');
      const send = secure ? httpsRequest : httpRequest;
      const outgoing = send(url, {
        method,
        headers: body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        agent: secure ? agents.https : agents.http,
      });
      // Settles the promise once; a failure also drops the connection (never back to the pool
      // half read). Every listener goes through it, so nothing throws outside the promise.
      let settled = false;
      const settle = (failure: unknown, answer?: HttpAnswer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (answer) return resolve(answer);
        outgoing.destroy();
        reject(failure);
      };
      // The whole exchange, not idle time: a server sending a byte now and then would reset an
      // idle timer for ever (issue 45).
      const timer = setTimeout(() => settle(timeoutError(timeoutMs)), timeoutMs);
      const onAbort = (): void => settle(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.on('error', settle);
      outgoing.on('response', (response: IncomingMessage) => {
        if (Number(response.headers['content-length'] ?? '') > maxAnswerBytes) {
          return settle(BadAnswerError.answerTooLarge(url, maxAnswerBytes));
        }
        // Bytes, decoded once at the end: no string grows towards V8's limit, and a character
        // split between chunks decodes whole.
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxAnswerBytes) settle(BadAnswerError.answerTooLarge(url, maxAnswerBytes));
          else chunks.push(chunk);
        });
        response.on('error', settle);
        response.on('aborted', () => settle(new Error('the answer was cut off')));
        response.on('end', () => {
          const text = Buffer.concat(chunks, size).toString('utf8');
          settle(undefined, {
            status: response.statusCode ?? 0,
            header: (name) => {
              const value = response.headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
            },
            text: () => Promise.resolve(text),
          });
        });
      });
      outgoing.end(body);
    });
}
