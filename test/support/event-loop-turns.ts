/**
 * Counts the turns of the event loop that other work gets while something runs: a callback
 * re-queued with `setImmediate` until `stop()`, which answers how many times it ran.
 */
export function countEventLoopTurns(): { stop(): number } {
  let turns = 0;
  let counting = true;
  const count = (): void => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    stop: () => {
      counting = false;
      return turns;
    },
  };
}
