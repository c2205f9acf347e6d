import { AdminOnly } from '../components/admin-only.js';
import { LoopLink, SessionLink } from '../components/entity-link.js';
import { IdText } from '../components/id-text.js';
import { Link } from '../components/link.js';
import { Loading } from '../components/loading.js';
import { FiguresLegend, LoopConditionText } from '../components/loop-condition.js';
import { CursorPager } from '../components/pager.js';
import { ProblemMessage } from '../components/problem-message.js';
import { Age, useNow } from '../components/time-text.js';
import { useResource } from '../components/use-resource.js';
import { LOOP_FILTERS, routeHref, type ConsoleRoute, type LoopFilter } from '../routing/console-route.js';
import { navigate } from '../routing/navigation.js';
import { API_PAGE_SIZE } from './sessions.view.js';
import type { ViewProps } from './view-props.js';

type LoopsRoute = Extract<ConsoleRoute, { view: 'loops' }>;

const FILTER_HELP: Record<LoopFilter, string> = {
  all: 'every loop',
  unconsumed: 'loops with unconsumed notifications',
  full: 'loops whose next delivery answers inbox_full',
  stopped: 'stopped loops with work nobody will take',
  stale: 'loops whose oldest unconsumed notification is older than the age below',
};

/** Every loop, newest first (`GET /v1/admin/loops`), filtered, a page at a time. */
export function LoopsView(props: ViewProps & { route: LoopsRoute }) {
  const admin = props.identity.kind === 'admin';
  const { filter, olderThanS, sessionId, cursor } = props.route;
  const now = useNow();
  const [page] = useResource(
    (signal) =>
      admin
        ? props.clients.api.adminLoops(
            {
              filter,
              limit: API_PAGE_SIZE,
              ...(cursor ? { cursor } : {}),
              ...(sessionId ? { session_id: sessionId } : {}),
              ...(filter === 'stale' && olderThanS !== undefined ? { older_than_s: olderThanS } : {}),
            },
            { signal },
          )
        : Promise.resolve(undefined),
    [props.clients, admin, filter, olderThanS, sessionId, cursor],
  );
  // A new filter starts at the first page, as a new address (back returns to the previous filter).
  const go = (change: Partial<LoopsRoute>): void => navigate(routeHref({ ...props.route, cursor: undefined, ...change }));
  return (
    <>
      <h1 tabIndex={-1}>Loops</h1>
      {!admin ? (
        <AdminOnly identity={props.identity} />
      ) : (
        <>
          <form class="filters" onSubmit={(event) => event.preventDefault()}>
            <p>
              <label for="loops-filter">Filter</label>
              <select
                id="loops-filter"
                name="filter"
                value={filter}
                aria-describedby="loops-filter-help"
                onChange={(event) => go({ filter: event.currentTarget.value as LoopFilter })}
              >
                {LOOP_FILTERS.map((value) => (
                  <option key={value} value={value}>
                    {value}
                  </option>
                ))}
              </select>
              <span id="loops-filter-help" class="hint">
                {FILTER_HELP[filter]}
              </span>
            </p>
            {filter === 'stale' && (
              <p>
                <label for="loops-older-than">Older than (seconds)</label>
                <input
                  id="loops-older-than"
                  name="older_than_s"
                  type="number"
                  min={1}
                  step={1}
                  value={olderThanS ?? 300}
                  onChange={(event) => {
                    const seconds = Number(event.currentTarget.value);
                    if (Number.isInteger(seconds) && seconds >= 1) go({ olderThanS: seconds });
                  }}
                />
              </p>
            )}
            {sessionId && (
              <p>
                Session <IdText id={sessionId} /> only. <Link href={routeHref({ view: 'loops', filter })}>Every session</Link>
              </p>
            )}
          </form>
          {page.status === 'loading' ? (
            <Loading what="loops" />
          ) : page.status === 'failed' ? (
            <ProblemMessage error={page.error} />
          ) : page.data!.loops.length === 0 ? (
            <p role="status">No loops match the filter {filter}.</p>
          ) : (
            <>
              <table>
                <caption>Loops ({filter}), newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Session id</th>
                    <th scope="col">Loop id</th>
                    <th scope="col">Engine</th>
                    <th scope="col">State</th>
                    <th scope="col">Condition</th>
                    <th scope="col">Capacity</th>
                    <th scope="col">Unconsumed</th>
                    <th scope="col">Oldest unconsumed</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data!.loops.map((loop) => (
                    <tr key={`${loop.session_id}/${loop.loop_id}`}>
                      <td>
                        <SessionLink sessionId={loop.session_id} />
                      </td>
                      <td>
                        <LoopLink sessionId={loop.session_id} loopId={loop.loop_id} />
                      </td>
                      <td>{loop.engine}</td>
                      <td>{loop.state}</td>
                      <td>
                        <LoopConditionText loop={loop} now={now} short />
                      </td>
                      <td class="number">{loop.capacity}</td>
                      <td class="number">{loop.unconsumed}</td>
                      <td>
                        {loop.oldest_unconsumed_at ? <Age at={loop.oldest_unconsumed_at} now={now} /> : <span class="none">none</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <FiguresLegend />
              <CursorPager
                firstHref={routeHref({ ...props.route, cursor: undefined })}
                onFirstPage={!cursor}
                nextHref={page.data!.next_cursor ? routeHref({ ...props.route, cursor: page.data!.next_cursor }) : undefined}
              />
            </>
          )}
        </>
      )}
    </>
  );
}
