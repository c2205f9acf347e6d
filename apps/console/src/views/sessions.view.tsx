import { AdminOnly } from '../components/admin-only.js';
import { AttentionPanel } from '../components/attention-panel.js';
import { SessionLink } from '../components/entity-link.js';
import { Loading } from '../components/loading.js';
import { CursorPager } from '../components/pager.js';
import { ProblemMessage } from '../components/problem-message.js';
import { Instant, UpdatedAgo, useNow } from '../components/time-text.js';
import { REFRESH_EVERY_MS, useRefresh } from '../components/use-refresh.js';
import { useResource } from '../components/use-resource.js';
import { routeHref, type ConsoleRoute } from '../routing/console-route.js';
import type { ViewProps } from './view-props.js';

/** Rows per page of a list the API pages. */
export const API_PAGE_SIZE = 50;

/**
 * The first screen of the admin token: what needs attention (full, stopped and stale loops,
 * dead nodes, collisions), then every session, newest first (`GET /v1/admin/sessions`), a page at
 * a time; both read again every few seconds.
 */
export function SessionsView(props: ViewProps & { route: Extract<ConsoleRoute, { view: 'sessions' }> }) {
  const admin = props.identity.kind === 'admin';
  const { cursor } = props.route;
  const now = useNow();
  const [page, reload] = useResource(
    (signal) => (admin ? props.clients.api.adminSessions({ limit: API_PAGE_SIZE, cursor }, { signal }) : Promise.resolve(undefined)),
    [props.clients, admin, cursor],
  );
  // No stream of sessions: the list is read again every few seconds, its age shown.
  const updatedAt = useRefresh(reload, page.data);
  return (
    <>
      <h1 tabIndex={-1}>Sessions</h1>
      {admin && !cursor && <AttentionPanel api={props.clients.api} />}
      {admin && <h2>Every session</h2>}
      {!admin ? (
        <AdminOnly identity={props.identity} />
      ) : page.status === 'loading' && !page.data ? (
        <Loading what="sessions" />
      ) : page.status === 'failed' ? (
        <ProblemMessage error={page.error} />
      ) : page.data!.sessions.length === 0 ? (
        <p>No sessions{cursor ? ' on this page' : ' yet'}.</p>
      ) : (
        <>
          <UpdatedAgo at={updatedAt} now={now} everyMs={REFRESH_EVERY_MS} />
          <table>
            <caption>Sessions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Session id</th>
                <th scope="col">Created</th>
                <th scope="col">Loops</th>
                <th scope="col">Running loops</th>
                <th scope="col">Unconsumed</th>
                <th scope="col">Last sequence</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {page.data!.sessions.map((session) => (
                <tr key={session.session_id}>
                  <td>
                    <SessionLink sessionId={session.session_id} />
                  </td>
                  <td>
                    <Instant at={session.created_at} />
                  </td>
                  <td class="number">{session.loops}</td>
                  <td class="number">{session.running_loops}</td>
                  <td class="number">{session.unconsumed}</td>
                  <td class="number">{session.last_sequence}</td>
                  <td class={session.state === 'closed' ? 'closed' : undefined}>{session.state}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <CursorPager
            firstHref={routeHref({ view: 'sessions' })}
            onFirstPage={!cursor}
            nextHref={page.data!.next_cursor ? routeHref({ view: 'sessions', cursor: page.data!.next_cursor }) : undefined}
          />
        </>
      )}
    </>
  );
}
