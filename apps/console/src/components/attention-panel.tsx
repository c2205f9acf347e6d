import type { AdminLoop, ProcessNotificationsClient, Refusal } from 'process-notifications-client';
import { DifferingFields, OriginalText } from './collision-text.js';
import { CommandLink, LoopLink, SessionLink } from './entity-link.js';
import { IdText } from './id-text.js';
import { Loading } from './loading.js';
import { FiguresLegend, LoopConditionText, loopConditions, STALE_AFTER_S } from './loop-condition.js';
import { ProblemMessage } from './problem-message.js';
import { Instant, useNow } from './time-text.js';
import { useResource } from './use-resource.js';

// At most this many loops of each condition, and collisions, on the first screen; the lists link to the rest.
const SHOWN = 20;
// Collisions among this many newest refusals.
const REFUSALS_SCANNED = 200;

interface Attention {
  readonly loops: readonly AdminLoop[];
  readonly collisions: readonly Refusal[];
}

async function attention(api: ProcessNotificationsClient, signal: AbortSignal): Promise<Attention> {
  const [full, stopped, stale, refusals] = await Promise.all([
    api.adminLoops({ filter: 'full', limit: SHOWN }, { signal }),
    api.adminLoops({ filter: 'stopped', limit: SHOWN }, { signal }),
    api.adminLoops({ filter: 'stale', older_than_s: STALE_AFTER_S, limit: SHOWN }, { signal }),
    api.refusals({ limit: REFUSALS_SCANNED }, { signal }),
  ]);
  // A loop that is full and stopped is listed once, with both conditions.
  const loops = new Map<string, AdminLoop>();
  for (const loop of [...full.loops, ...stopped.loops, ...stale.loops]) loops.set(`${loop.session_id}/${loop.loop_id}`, loop);
  const collisions = refusals.refusals.filter((refusal) => refusal.code === 'idempotency_collision').slice(0, SHOWN);
  return { loops: [...loops.values()], collisions };
}

/**
 * What needs an operator now, on the first screen: loops that are full, stopped with work left
 * or stale, and recent idempotency collisions (admin token).
 */
export function AttentionPanel(props: { api: ProcessNotificationsClient }) {
  const now = useNow();
  const [found, reload] = useResource((signal) => attention(props.api, signal), [props.api]);
  return (
    <section aria-labelledby="attention-heading" class="attention">
      <h2 id="attention-heading">Needs attention</h2>
      {found.status === 'loading' && !found.data ? (
        <Loading what="what needs attention" />
      ) : found.status === 'failed' ? (
        <ProblemMessage error={found.error} />
      ) : (
        found.data && (
          <>
            <p>
              <button type="button" onClick={reload}>
                Refresh
              </button>
            </p>
            {found.data.loops.length === 0 ? (
              <p role="status">No loop is full, stopped with work left, or stale.</p>
            ) : (
              <table>
                <caption>Loops that need attention: full, stopped with work left, or stale</caption>
                <thead>
                  <tr>
                    <th scope="col">Loop id</th>
                    <th scope="col">Session id</th>
                    <th scope="col">Condition</th>
                    <th scope="col">Unconsumed</th>
                    <th scope="col">Capacity</th>
                  </tr>
                </thead>
                <tbody>
                  {found.data.loops.map((loop) => (
                    <tr
                      key={`${loop.session_id}/${loop.loop_id}`}
                      data-conditions={loopConditions(loop, now)
                        .map((c) => c.name)
                        .join(' ')}
                    >
                      <td>
                        <LoopLink sessionId={loop.session_id} loopId={loop.loop_id} />
                      </td>
                      <td>
                        <SessionLink sessionId={loop.session_id} />
                      </td>
                      <td>
                        <LoopConditionText loop={loop} now={now} />
                      </td>
                      <td class="number">{loop.unconsumed}</td>
                      <td class="number">{loop.capacity}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {found.data.collisions.length === 0 ? (
              <p role="status">No recent idempotency collision.</p>
            ) : (
              <table>
                <caption>Recent idempotency collisions: a supervisor reused a command id for another payload</caption>
                <thead>
                  <tr>
                    <th scope="col">Command id or event id</th>
                    <th scope="col">Original</th>
                    <th scope="col">Fields that differ</th>
                    <th scope="col">Loop id</th>
                    <th scope="col">At</th>
                  </tr>
                </thead>
                <tbody>
                  {found.data.collisions.map((refusal, i) => (
                    <tr key={`${refusal.at}-${i}`}>
                      <td>
                        {refusal.command_id ? (
                          <CommandLink commandId={refusal.command_id} />
                        ) : (
                          <>
                            <span class="label">event</span> <IdText id={refusal.event_id} />
                          </>
                        )}
                      </td>
                      <td>
                        <OriginalText refusal={refusal} />
                      </td>
                      <td>
                        <DifferingFields refusal={refusal} />
                      </td>
                      <td>
                        {refusal.loop_id ? <LoopLink sessionId={refusal.session_id} loopId={refusal.loop_id} /> : <IdText id={null} />}
                      </td>
                      <td>
                        <Instant at={refusal.at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <FiguresLegend />
          </>
        )
      )}
    </section>
  );
}
