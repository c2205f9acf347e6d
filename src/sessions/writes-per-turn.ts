import type { Socket } from 'node:net';
import { tap, type MonoTypeOperatorFunction } from 'rxjs';

/**
 * Sends an event stream's writes of one turn of the event loop together. A commit releases a
 * stream's events at once, and Nest writes them one at a time, each after the last one's write
 * callback (a `nextTick`), and Node sends each chunked write on its own: one `writev` or more per
 * event. Corking the socket at the turn's first event and uncorking it once the turn's
 * `setImmediate` callbacks run (after every `nextTick` and microtask of the turn) sends them in
 * one. The events leave in the same turn as before, in the same order.
 */
export function writesPerTurn<T>(socket: Socket | undefined): MonoTypeOperatorFunction<T> {
  let corked = false;
  return tap(() => {
    if (corked || !socket || socket.destroyed) return;
    corked = true;
    socket.cork();
    setImmediate(() => {
      corked = false;
      // A socket ended meanwhile was uncorked by its end(); uncork() on it does nothing.
      socket.uncork();
    });
  });
}
