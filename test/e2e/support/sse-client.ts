import { request, type IncomingHttpHeaders } from 'node:http';

export interface ServerSentEvent {
  readonly id: string | undefined;
  readonly data: string;
}

/**
 * An open `text/event-stream` response read with a raw HTTP request. `next(n)` resolves once
 * `n` more events have arrived; no timers are involved.
 */
export interface SseConnection {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  next(count: number): Promise<ServerSentEvent[]>;
  /** Resolves with the text of the next comment line (`: text`) once it has arrived. */
  nextComment(): Promise<string>;
  /** Resolves when the connection closes: true when the server ended the response cleanly. */
  readonly ended: Promise<boolean>;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string>): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      const events: ServerSentEvent[] = [];
      const waiters: { count: number; resolve: (events: ServerSentEvent[]) => void }[] = [];
      const comments: string[] = [];
      const commentWaiters: ((comment: string) => void)[] = [];
      let buffer = '';
      const settle = (): void => {
        while (waiters.length > 0 && events.length >= waiters[0]!.count) {
          const waiter = waiters.shift()!;
          waiter.resolve(events.splice(0, waiter.count));
        }
        while (commentWaiters.length > 0 && comments.length > 0) commentWaiters.shift()!(comments.shift()!);
      };
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | undefined;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
            else if (line.startsWith(':')) comments.push(line.slice(1).trim());
          }
          if (data.length > 0) events.push({ id, data: data.join('\n') });
        }
        settle();
      });
      const ended = new Promise<boolean>((resolveEnd) => res.on('close', () => resolveEnd(res.complete)));
      resolve({
        status: res.statusCode!,
        headers: res.headers,
        next: (count) =>
          new Promise((resolveNext) => {
            waiters.push({ count, resolve: resolveNext });
            settle();
          }),
        nextComment: () =>
          new Promise((resolveComment) => {
            commentWaiters.push(resolveComment);
            settle();
          }),
        ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
