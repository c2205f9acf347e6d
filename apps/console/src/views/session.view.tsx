import type { AdminLoop, ProcessNotificationsClient } from 'process-notifications-client';
import { LoopLink } from '../components/entity-link.js';
import { IdText } from '../components/id-text.js';
import { Link } from '../components/link.js';
import { Loading } from '../components/loading.js';
import { FiguresLegend, LoopConditionText } from '../components/loop-condition.js';
import { useNow } from '../components/time-text.js';
import { usePage } from '../components/pager.js';
import { ProblemMessage } from '../components/problem-message.js';
import { useResource } from '../components/use-resource.js';
import { routeHref, type ConsoleRoute } from '../routing/console-route.js';
import type { ViewProps } from './view-props.js';

/** The admin's figures of a session's loops (`GET /v1/admin/loops?session_id=`), by loop id. */
async function adminLoopsOf(api: ProcessNotificationsClient, sessionId: string, signal: AbortSignal): Promise<Map<string, AdminLoop>> {
  const loops = new Map<string, AdminLoop>();
  let cursor: string | undefined;
  do {
    const page = await api.adminLoops({ session_id: sessionId, limit: 1000, ...(cursor ? { cursor } : {}) }, { signal });
    for (const loop of page.loops) loops.set(loop.loop_id, loop);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return loops;
}

/**
 * One session and its loops (`GET /v1/sessions/:sid`: the admin's or that session's own token);
 * for the admin token also each loop's unconsumed count and condition.
 */
export function SessionView(props: ViewProps & { route: Extract<ConsoleRoute, { view: 'session' }> }) {
  const { sessionId } = props.route;
  const admin = props.identity.kind === 'admin';
  const now = useNow();
  const [session] = useResource((signal) => props.clients.api.getSession(sessionId, { signal }), [props.clients, sessionId]);
  const [figures] = useResource(
    (signal) => (admin ? adminLoopsOf(props.clients.api, sessionId, signal) : Promise.resolve(undefined)),
    [props.clients, admin, sessionId],
  );
  const adminLoops = figures.status === 'ready' ? figures.data : undefined;
  const loops = session.status === 'ready' ? session.data.loops : [];
  const { rows, pager } = usePage(loops, sessionId);
  return (
    <>
      <h1 tabIndex={-1}>
        Session <IdText id={sessionId} />
      </h1>
      {session.status === 'loading' ? (
        <Loading what="the session" />
      ) : session.status === 'failed' ? (
        <ProblemMessage error={session.error} />
      ) : (
        <>
          {props.identity.kind === 'admin' && (
            <p>
              <Link href={routeHref({ view: 'loops', filter: 'all', sessionId })}>
                This session&apos;s loops with their unconsumed counts
              </Link>
            </p>
          )}
          {loops.length === 0 ? (
            <p>This session has no loops.</p>
          ) : (
            <>
              <table>
                <caption>Loops of this session</caption>
                <thead>
                  <tr>
                    <th scope="col">Loop id</th>
                    <th scope="col">Engine</th>
                    <th scope="col">State</th>
                    {admin && <th scope="col">Condition</th>}
                    <th scope="col">Capacity</th>
                    <th scope="col">Pending</th>
                    {admin && <th scope="col">Unconsumed</th>}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((loop) => (
                    <tr key={loop.loop_id}>
                      <td>
                        <LoopLink sessionId={sessionId} loopId={loop.loop_id} />
                      </td>
                      <td>{loop.engine}</td>
                      <td>{loop.state}</td>
                      {admin && (
                        <td>
                          {adminLoops?.get(loop.loop_id) && <LoopConditionText loop={adminLoops.get(loop.loop_id)!} now={now} short />}
                        </td>
                      )}
                      <td class="number">{loop.capacity}</td>
                      <td class="number">{loop.pending}</td>
                      {admin && <td class="number">{adminLoops?.get(loop.loop_id)?.unconsumed ?? ''}</td>}
                    </tr>
                  ))}
                </tbody>
              </table>
              {pager}
              <FiguresLegend />
            </>
          )}
        </>
      )}
    </>
  );
}
