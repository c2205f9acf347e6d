import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProcessNotificationsClient } from 'process-notifications-client';
import { newTraceparent } from './support/trace-context.js';

// The client sends the caller's trace context on every attempt (spec section 13), through a hook
// of its options: it imports no tracing library itself.
describe('tracing: the client’s propagateTraceContext', () => {
  it('adds the hook’s traceparent to every attempt of a retried call, and a throwing hook fails nothing', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers);
      // The first attempt is refused as retryable; the second answers.
      if (seen.length === 1) {
        response.writeHead(503, { 'Content-Type': 'application/problem+json', 'Retry-After': '0' });
        response.end(JSON.stringify({ type: 'about:blank', title: 'Unavailable', status: 503, code: 'journal_unavailable' }));
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const contexts = [newTraceparent(), newTraceparent()];
      let calls = 0;
      const client = new ProcessNotificationsClient({
        baseUrl,
        retry: { baseDelayMs: 1, maxDelayMs: 1 },
        propagateTraceContext: (headers) => {
          headers.traceparent = contexts[calls++]!.traceparent;
        },
      });
      // A read retries only when asked to.
      await client.health({ retry: true });
      expect(seen.map((headers) => headers.traceparent)).toEqual(contexts.map((context) => context.traceparent));

      const broken = new ProcessNotificationsClient({
        baseUrl,
        propagateTraceContext: () => {
          throw new Error('no tracer');
        },
      });
      await expect(broken.health()).resolves.toBeDefined();
      expect(seen.at(-1)!.traceparent).toBeUndefined();
    } finally {
      server.close();
    }
  });
});
