import { DifferingFields, OriginalText } from './collision-text.js';
import { CommandLink, LoopLink, SessionLink } from './entity-link.js';
import { IdText } from './id-text.js';
import { timesText, type RefusalGroup } from './refusal-groups.js';
import { Instant } from './time-text.js';

/**
 * Refusals as a table that fits a 1280 px window: ids stacked two to a cell (each in full), a
 * collision's original and differing field names, the command id linking to its search. One row
 * per group of refusals that say the same (a supervisor's retries), with how often.
 */
export function RefusalsTable(props: { refusals: readonly RefusalGroup[]; caption: string }) {
  return (
    <table class="refusals">
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Last at, node id, how often</th>
          <th scope="col">Code and cause</th>
          <th scope="col">Session id and loop id</th>
          <th scope="col">Command id or event id</th>
          <th scope="col">Collision: original, fields that differ</th>
        </tr>
      </thead>
      <tbody>
        {props.refusals.map(({ refusal, times }, i) => (
          <tr key={`${refusal.at}-${i}`} data-code={refusal.code} data-times={times}>
            <td>
              <Instant at={refusal.at} />
              <br />
              <span class="label">node</span> <IdText id={refusal.node_id} />
              <br />
              <span class="label">refused</span> {timesText(times)}
            </td>
            <td>
              {refusal.code}
              <br />
              <span class="label">cause</span> {refusal.cause ?? <span class="none">none</span>}
            </td>
            <td>
              <span class="label">session</span> <SessionLink sessionId={refusal.session_id} />
              <br />
              <span class="label">loop</span>{' '}
              {refusal.loop_id ? <LoopLink sessionId={refusal.session_id} loopId={refusal.loop_id} /> : <IdText id={null} />}
            </td>
            <td>
              {refusal.event_id ? (
                <>
                  <span class="label">event</span> <IdText id={refusal.event_id} />
                </>
              ) : (
                <>
                  <span class="label">command</span> <CommandLink commandId={refusal.command_id} />
                </>
              )}
            </td>
            <td>
              {refusal.code === 'idempotency_collision' ? (
                <>
                  <span class="label">original</span> <OriginalText refusal={refusal} />
                  <br />
                  <span class="label">differs</span> <DifferingFields refusal={refusal} />
                </>
              ) : (
                <span class="none">not a collision</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
