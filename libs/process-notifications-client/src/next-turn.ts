/**
 * Runs `run` on the next turn of the event loop, so that calls issued together (the items of one
 * chunk of a stream, the senders woken by one answer) join one request: setImmediate where there
 * is one (Node), else a timer.
 */
export const nextTurn: (run: () => void) => void =
  typeof setImmediate === 'function' ? (run) => void setImmediate(run) : (run) => void setTimeout(run, 0);
