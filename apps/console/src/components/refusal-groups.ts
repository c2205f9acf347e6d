import type { Refusal } from 'process-notifications-client';

/** Refusals that say the same, listed once: the newest of them, and how many there were. */
export interface RefusalGroup {
  /** The newest refusal of the group (its time and node are shown). */
  readonly refusal: Refusal;
  readonly times: number;
}

/** What makes two refusals the same answer to the same delivery: all but when and which node. */
export function sameRefusalKey(refusal: Refusal): string {
  const { at: _at, node_id: _node, ...what } = refusal;
  return JSON.stringify(what, Object.keys(what).sort());
}

/**
 * `refusals` (newest first) grouped by `keyOf`, in the order of each group's newest: a supervisor
 * that retries a delivery refused the same way is one row, with how often, not one row per try.
 */
export function groupRefusals(refusals: readonly Refusal[], keyOf: (refusal: Refusal) => string = sameRefusalKey): RefusalGroup[] {
  const groups = new Map<string, { refusal: Refusal; times: number }>();
  for (const refusal of refusals) {
    const key = keyOf(refusal);
    const seen = groups.get(key);
    if (seen) seen.times += 1;
    else groups.set(key, { refusal, times: 1 });
  }
  return [...groups.values()];
}

/** How often, in words: `once`, `3 times`. */
export const timesText = (times: number): string => (times === 1 ? 'once' : `${times} times`);
