import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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
  return ({ method, url, headers, body, signal, timeoutMs }: HttpRequest) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const secure = url.startsWith('https:');
      const send = secure ? httpsRequest : httpRequest;
      const outgoing = send(url, {
        method,
        headers: body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        agent: secure ? agents.https : agents.http,
        signal,
      });
      // Idle time without a byte from the server, which for one JSON answer is the wait for it.
      outgoing.setTimeout(timeoutMs, () => outgoing.destroy(timeoutError(timeoutMs)));
      outgoing.on('error', reject);
      outgoing.on('response', (response: IncomingMessage) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('error', reject);
        response.on('aborted', () => reject(new Error('the answer was cut off')));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            header: (name) => {
              const value = response.headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
            },
            text: () => Promise.resolve(text),
          }),
        );
      });
      outgoing.end(body);
    });
}
