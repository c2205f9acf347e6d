import { AdminOnly } from '../components/admin-only.js';
import { LoopLink, SessionLink } from '../components/entity-link.js';
import { IdText } from '../components/id-text.js';
import { Loading } from '../components/loading.js';
import { usePage } from '../components/pager.js';
import { ProblemMessage } from '../components/problem-message.js';
import { Instant } from '../components/time-text.js';
import { useResource } from '../components/use-resource.js';
import type { ViewProps } from './view-props.js';

// The most the node keeps (spec section 12.1), paged here.
const REFUSALS_LIMIT = 1000;

/** What this node refused lately (`GET /v1/admin/refusals`), newest first. */
export function RefusalsView(props: ViewProps) {
  const admin = props.identity.kind === 'admin';
  const [refusals, reload] = useResource(
    (signal) => (admin ? props.clients.api.refusals({ limit: REFUSALS_LIMIT }, { signal }) : Promise.resolve(undefined)),
    [props.clients, admin],
  );
  const { rows, pager } = usePage(refusals.status === 'ready' ? (refusals.data?.refusals ?? []) : []);
  return (
    <>
      <h1 tabIndex={-1}>Refusals</h1>
      {!admin ? (
        <AdminOnly identity={props.identity} />
      ) : refusals.status === 'loading' && !refusals.data ? (
        <Loading what="refusals" />
      ) : refusals.status === 'failed' ? (
        <ProblemMessage error={refusals.error} />
      ) : (
        <>
          <p>
            What this node answered with a refusal lately (kept in memory, the last {REFUSALS_LIMIT}).{' '}
            <button type="button" onClick={reload}>
              Refresh
            </button>
          </p>
          {rows.length === 0 ? (
            <p>No refusals.</p>
          ) : (
            <>
              <table>
                <caption>Recent refusals, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">At</th>
                    <th scope="col">Code</th>
                    <th scope="col">Cause</th>
                    <th scope="col">Session id</th>
                    <th scope="col">Loop id</th>
                    <th scope="col">Command id</th>
                    <th scope="col">Event id</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((refusal, i) => (
                    <tr key={`${refusal.at}-${i}`}>
                      <td>
                        <Instant at={refusal.at} />
                      </td>
                      <td>{refusal.code}</td>
                      <td>{refusal.cause ?? <span class="none">none</span>}</td>
                      <td>{refusal.session_id ? <SessionLink sessionId={refusal.session_id} /> : <IdText id={null} />}</td>
                      <td>
                        {refusal.session_id && refusal.loop_id ? (
                          <LoopLink sessionId={refusal.session_id} loopId={refusal.loop_id} />
                        ) : (
                          <IdText id={refusal.loop_id} />
                        )}
                      </td>
                      <td>
                        <IdText id={refusal.command_id} />
                      </td>
                      <td>
                        <IdText id={refusal.event_id} />
                      </td>
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
