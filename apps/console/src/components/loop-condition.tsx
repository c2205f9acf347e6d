import type { AttentionCondition, LoopState } from 'process-notifications-contract';
import { ageText } from './time-text.js';

/** The default of the loops list's `stale` filter (spec section 12.1), in seconds. */
export const STALE_AFTER_S = 300;

/** What the console needs of a loop to tell its condition. */
export interface LoopFigures {
  readonly state: LoopState;
  readonly capacity: number;
  /** Journaled and not consumed: pending plus refused (spec section 12.1). */
  readonly unconsumed: number;
  readonly oldest_unconsumed_at: string | null;
}

/** One thing wrong with a loop, as the loops filter names it, and what it means. */
export interface LoopCondition {
  readonly name: AttentionCondition;
  readonly text: string;
  /** The same in a few words, for a list's cell. */
  readonly short: string;
}

/**
 * A loop's conditions at a glance, the same on every view: `full` (its next delivery is refused
 * as inbox_full), `stopped` with work left (nobody will take it), `stale` (its oldest unconsumed
 * notification is older than {@link STALE_AFTER_S} s). None: the loop is fine.
 */
export function loopConditions(loop: LoopFigures, now: number): LoopCondition[] {
  const conditions: LoopCondition[] = [];
  if (loop.unconsumed >= loop.capacity) {
    conditions.push({
      name: 'full',
      // Over capacity: the set holds `capacity`, the rest were refused and wait for a retry.
      text:
        loop.unconsumed > loop.capacity
          ? `over capacity: ${loop.unconsumed} unconsumed, ${loop.unconsumed - loop.capacity} more than its capacity of ${loop.capacity}; its next delivery is refused (inbox_full)`
          : `full: ${loop.unconsumed} unconsumed, its whole capacity; its next delivery is refused (inbox_full)`,
      short: 'full: next delivery refused',
    });
  }
  if (loop.state === 'stopped' && loop.unconsumed > 0) {
    conditions.push({
      name: 'stopped',
      text: `stopped with work left: ${loop.unconsumed} unconsumed that no running loop will take`,
      short: 'stopped with work left',
    });
  }
  if (loop.unconsumed > 0 && loop.oldest_unconsumed_at && now - Date.parse(loop.oldest_unconsumed_at) > STALE_AFTER_S * 1000) {
    const age = ageText(loop.oldest_unconsumed_at, now);
    conditions.push({ name: 'stale', text: `stale: its oldest unconsumed notification waits for ${age}`, short: `stale: waits ${age}` });
  }
  return conditions;
}

/** The conditions of {@link loopConditions}, or `ok`; `short` in a list's cell. */
export function LoopConditionText(props: { loop: LoopFigures; now: number; short?: boolean }) {
  const conditions = loopConditions(props.loop, props.now);
  if (conditions.length === 0) return <span class="condition ok">ok</span>;
  return (
    <ul class="conditions">
      {conditions.map((condition) => (
        <li key={condition.name} class={`condition ${condition.name}`}>
          {props.short ? condition.short : condition.text}
        </li>
      ))}
    </ul>
  );
}

/** What the figures are called on every view. */
export function FiguresLegend() {
  return (
    <p class="hint legend">
      <strong>Pending</strong>: in the loop&apos;s set now (handed to the loop). <strong>Unconsumed</strong>: journaled and not consumed:
      the pending ones plus those the loop refused (its set was full, or it was stopped).
    </p>
  );
}
