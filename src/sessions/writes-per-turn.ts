import type { Socket } from 'node:net';
import { tap, type MonoTypeOperatorFunction } from 'rxjs';

/**
 * Most events of one turn sent together. A longer burst (a catch-up page) is written as each
 * event comes, as without this operator: a corked socket passes its high-water mark within such a
 * burst, and a burst held whole could reach the slow-reader limit (`MAX_PENDING_EVENT_CHARS`) of
 * a reader that keeps up. 64 events of the largest records (about 1.2 KB each) are under 80 KB.
 */
export const MAX_EVENTS_PER_WRITE = 64;

/**
 * Sends an event stream's events of one turn of the event loop together. A commit releases a
 * stream's events at once, and Nest writes them one at a time, each after the last one's write
 * callback (a `nextTick`), and Node sent each chunked write on its own: one `writev` or more per
 * event. The socket is corked at the turn's first event and uncorked by a `setImmediate`, after
 * every `nextTick` and microtask of the turn: the events go in one write, in their order. Events
 * emitted in an immediate callback (a SQLite read turn) wait for the next turn's immediates, past
 * the I/O that turn handles (in the bench's file worker row: send → loop p99 about 20 ms more,
 * p50 unchanged). A burst of more than {@link MAX_EVENTS_PER_WRITE} uncorks at once.
 */
export function writesPerTurn<T>(socket: Socket | undefined): MonoTypeOperatorFunction<T> {
  // This turn's events so far, while the turn has begun a cork; undefined otherwise.
  let held: number | undefined;
  return tap(() => {
    if (!socket || socket.destroyed) return;
    if (held === undefined) {
      held = 0;
      socket.cork();
      setImmediate(() => {
        const corked = held !== undefined && held <= MAX_EVENTS_PER_WRITE;
        held = undefined;
        // After the response's end(), which uncorks its socket fully, this does nothing.
        if (corked) socket.uncork();
      });
    }
    // Too long a burst: written as it comes, from now to the turn's end.
    if (++held === MAX_EVENTS_PER_WRITE + 1) socket.uncork();
  });
}
