import type { Socket } from 'node:net';

/**
 * Characters of events (`data`, `comment`, `event` and `id`, at least 16 per event) that may wait
 * in the server for an event stream's client that is not reading them (issue 45): past it the
 * server drops the connection, releasing all it held, as if the client had gone; the client
 * resumes with `Last-Event-ID`. Given to `@Sse()` as Nest's `maxPendingDataLength` (whose default,
 * 4M, let 200 readers that stopped reading hold close to a gigabyte between them). A catch-up
 * page of the largest records (500 × about 1.2 KB) fits in it, and a session stream reads its next
 * page only once the socket has taken the last ({@link drainedOf}), so a reader that keeps up is
 * never dropped.
 */
export const MAX_PENDING_EVENT_CHARS = 1024 * 1024;

// How often a socket that still holds bytes is looked at again: it emits `drain` only after a
// write it refused, not whenever it empties.
const RECHECK_MS = 10;

/**
 * Resolves once `socket` has handed everything written to it to the operating system (or it
 * closed): a producer that awaits it before writing more never queues more than it wrote last.
 * A turn of the event loop comes first, so the events just emitted have reached the socket.
 */
export function drainedOf(socket: Socket | undefined): () => Promise<void> {
  return async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (socket && !socket.destroyed && socket.writableLength > 0) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        const timer = setTimeout(done, RECHECK_MS);
        socket.once('drain', done);
        socket.once('close', done);
      });
    }
  };
}
