import type { AdminLoop, ClusterNode, ProcessNotificationsClient, Refusal } from 'process-notifications-client';
import { DifferingFields, OriginalText } from './collision-text.js';
import { CommandLink, LoopLink, SessionLink } from './entity-link.js';
import { IdText } from './id-text.js';
import { Loading } from './loading.js';
import { FiguresLegend, LoopConditionText, loopConditions, STALE_AFTER_S } from './loop-condition.js';
import { ProblemMessage } from './problem-message.js';
import { groupRefusals, timesText, type RefusalGroup } from './refusal-groups.js';
import { Instant, UpdatedAgo, useNow } from './time-text.js';
import { REFRESH_EVERY_MS, useRefresh } from './use-refresh.js';
import { useResource } from './use-resource.js';

// At most this many loops of each condition, and collisions, on the first screen; the lists link to the rest.
const SHOWN = 20;
// Collisions among this many newest refusals.
const REFUSALS_SCANNED = 200;

/** One collision (a command or event id reused for another payload), however often it was refused. */
type Collision = RefusalGroup;

interface Attention {
  readonly loops: readonly AdminLoop[];
  readonly collisions: readonly Collision[];
  /** Nodes whose heartbeat expired: killed, frozen or stopped. */
  readonly deadNodes: readonly ClusterNode[];
}

/** The collisions among `refusals` (newest first), one per session and id, with how often each was refused. */
function collisionsOf(refusals: readonly Refusal[]): Collision[] {
  // A supervisor retrying its reused id is refused each time: one collision, listed once.
  return groupRefusals(
    refusals.filter((refusal) => refusal.code === 'idempotency_collision'),
    (refusal) => `${refusal.session_id}/${refusal.command_id ?? ''}/${refusal.event_id ?? ''}`,
  );
}

async function attention(api: ProcessNotificationsClient, signal: AbortSignal): Promise<Attention> {
  const [full, stopped, stale, refusals, nodes] = await Promise.all([
    api.adminLoops({ filter: 'full', limit: SHOWN }, { signal }),
    api.adminLoops({ filter: 'stopped', limit: SHOWN }, { signal }),
    api.adminLoops({ filter: 'stale', older_than_s: STALE_AFTER_S, limit: SHOWN }, { signal }),
    api.refusals({ limit: REFUSALS_SCANNED }, { signal }),
    api.nodes({ signal }),
  ]);
  // A loop that is full and stopped is listed once, with both conditions.
  const loops = new Map<string, AdminLoop>();
  for (const loop of [...full.loops, ...stopped.loops, ...stale.loops]) loops.set(`${loop.session_id}/${loop.loop_id}`, loop);
  const collisions = collisionsOf(refusals.refusals).slice(0, SHOWN);
  return { loops: [...loops.values()], collisions, deadNodes: nodes.nodes.filter((node) => !node.live) };
}

/**
 * What needs an operator now, on the first screen: loops that are full, stopped with work left
 * or stale, nodes that stopped answering, and recent idempotency collisions (admin token). Read
 * again every few seconds, with the age of what is shown.
 */
export function AttentionPanel(props: { api: ProcessNotificationsClient }) {
  const now = useNow();
  const [found, reload] = useResource((signal) => attention(props.api, signal), [props.api]);
  const updatedAt = useRefresh(reload, found.data);
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
            <UpdatedAgo at={updatedAt} now={now} everyMs={REFRESH_EVERY_MS} />
            <p>
              <button type="button" onClick={reload}>
                Refresh
              </button>
            </p>
            {found.data.deadNodes.length === 0 ? (
              <p role="status">No node has stopped answering.</p>
            ) : (
              <table>
                <caption>Dead nodes: their heartbeat expired; the next request to one of their sessions moves it to a live node</caption>
                <thead>
                  <tr>
                    <th scope="col">Node URL</th>
                    <th scope="col">Node id</th>
                    <th scope="col">Last heartbeat</th>
                    <th scope="col">Sessions owned</th>
                  </tr>
                </thead>
                <tbody>
                  {found.data.deadNodes.map((node) => (
                    <tr key={node.node_id}>
                      <td>
                        <code class="id">{node.node_url}</code>
                      </td>
                      <td>
                        <IdText id={node.node_id} />
                      </td>
                      <td>
                        <Instant at={node.last_heartbeat_at} />
                      </td>
                      <td class="number">{node.sessions}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
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
                    <th scope="col">Refused</th>
                    <th scope="col">Last at</th>
                  </tr>
                </thead>
                <tbody>
                  {found.data.collisions.map(({ refusal, times }) => (
                    <tr key={`${refusal.session_id}/${refusal.command_id ?? ''}/${refusal.event_id ?? ''}`}>
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
                      <td class="number">{timesText(times)}</td>
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
