import { LoopLink } from '../components/entity-link.js';
import { IdText } from '../components/id-text.js';
import { Link } from '../components/link.js';
import { Loading } from '../components/loading.js';
import { usePage } from '../components/pager.js';
import { ProblemMessage } from '../components/problem-message.js';
import { useResource } from '../components/use-resource.js';
import { routeHref, type ConsoleRoute } from '../routing/console-route.js';
import type { ViewProps } from './view-props.js';

/** One session and its loops (`GET /v1/sessions/:sid`: the admin's or that session's own token). */
export function SessionView(props: ViewProps & { route: Extract<ConsoleRoute, { view: 'session' }> }) {
  const { sessionId } = props.route;
  const [session] = useResource((signal) => props.clients.api.getSession(sessionId, { signal }), [props.clients, sessionId]);
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
                    <th scope="col">Capacity</th>
                    <th scope="col">Pending</th>
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
                      <td class="number">{loop.capacity}</td>
                      <td class="number">{loop.pending}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {pager}
            </>
          )}
        </>
      )}
    </>
  );
}
