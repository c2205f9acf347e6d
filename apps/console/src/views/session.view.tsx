import { useEffect, useState } from 'preact/hooks';
import type { AdminLoop, ProcessNotificationsClient } from 'process-notifications-client';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { LoopLink } from '../components/entity-link.js';
import { IdText } from '../components/id-text.js';
import { Link } from '../components/link.js';
import { Loading } from '../components/loading.js';
import { FiguresLegend, LoopConditionText } from '../components/loop-condition.js';
import { LoopStateText } from '../components/loop-state-text.js';
import { usePage } from '../components/pager.js';
import { ProblemMessage } from '../components/problem-message.js';
import { Instant, useNow } from '../components/time-text.js';
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

type Confirming = 'rotate' | 'close';
type ActionResult = { readonly token: string } | { readonly ok: string } | { readonly failed: unknown };

/**
 * One session and its loops (`GET /v1/sessions/:sid`: the admin's or that session's own token),
 * its state, and `Rotate token` and `Close session`, each after a confirmation. A token rotated
 * or a session closed with its own token changes what the console itself signed in with. For the
 * admin token also each loop's unconsumed count and condition.
 */
export function SessionView(props: ViewProps & { route: Extract<ConsoleRoute, { view: 'session' }> }) {
  const { sessionId } = props.route;
  const { api } = props.clients;
  const admin = props.identity.kind === 'admin';
  const now = useNow();
  const [session, reload] = useResource((signal) => api.getSession(sessionId, { signal }), [api, sessionId]);
  const [figures] = useResource(
    (signal) => (admin ? adminLoopsOf(api, sessionId, signal) : Promise.resolve(undefined)),
    [api, admin, sessionId],
  );
  const adminLoops = figures.status === 'ready' ? figures.data : undefined;
  const loops = session.status === 'ready' ? session.data.loops : [];
  const { rows, pager } = usePage(loops, sessionId);
  const own = props.identity.kind === 'session' && props.identity.session_id === sessionId;

  const [confirming, setConfirming] = useState<Confirming | undefined>(undefined);
  const [result, setResult] = useState<ActionResult | undefined>(undefined);
  const [acting, setActing] = useState(false);
  useEffect(() => setResult(undefined), [sessionId]);
  const act = async (what: Confirming): Promise<void> => {
    setConfirming(undefined);
    setActing(true);
    setResult(undefined);
    try {
      if (what === 'rotate') {
        const rotated = await api.rotateSessionToken(sessionId);
        setResult({ token: rotated.token });
        // The console's own token was the old one: it goes on with the new one.
        if (own) props.account.replaceToken(rotated.token);
      } else {
        const closed = await api.closeSession(sessionId, { retry: false });
        if (own) {
          props.account.signOut(`Session ${sessionId} was closed: its token no longer opens anything.`);
          return;
        }
        setResult({ ok: `Session closed at ${closed.closed_at}: its tokens no longer work; the admin token still reads it.` });
      }
    } catch (error) {
      setResult({ failed: error });
    } finally {
      setActing(false);
      reload();
    }
  };

  const data = session.status === 'failed' ? undefined : session.data;
  const closed = data?.state === 'closed';
  return (
    <>
      <h1 tabIndex={-1}>
        Session <IdText id={sessionId} />
      </h1>
      {session.status === 'loading' && !data ? (
        <Loading what="the session" />
      ) : session.status === 'failed' && !data ? (
        <ProblemMessage error={session.error} />
      ) : (
        <>
          {session.status === 'failed' && <ProblemMessage error={session.error} />}
          <dl class="counts">
            <div>
              <dt>State</dt>
              <dd>{data?.state}</dd>
            </div>
            {closed && (
              <div>
                <dt>Closed</dt>
                <dd>
                  <Instant at={data?.closed_at} />
                </dd>
              </div>
            )}
          </dl>
          <p class="actions">
            <button type="button" disabled={acting || closed} onClick={() => setConfirming('rotate')}>
              Rotate token
            </button>{' '}
            <button type="button" class="danger" disabled={acting || closed} onClick={() => setConfirming('close')}>
              Close session
            </button>
          </p>
          <div aria-live="polite">
            {acting && <p class="loading">Working…</p>}
            {result && 'ok' in result && (
              <p role="status" class="result">
                {result.ok}
              </p>
            )}
            {result && 'token' in result && <NewToken token={result.token} />}
          </div>
          {result && 'failed' in result && <ProblemMessage error={result.failed} />}
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
                      <td>
                        <LoopStateText state={loop.state} sessionClosed={closed} />
                      </td>
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
      {confirming && (
        <ConfirmDialog
          title={confirming === 'rotate' ? 'Rotate token?' : 'Close session?'}
          onCancel={() => setConfirming(undefined)}
          onConfirm={() => void act(confirming)}
        >
          {confirming === 'rotate' ? (
            <p>
              Give session <IdText id={sessionId} /> a new token? Its current token stops working at once, wherever it is used (a supervisor
              or loop using it must be given the new one).
            </p>
          ) : (
            <p>
              Close session <IdText id={sessionId} />? Its tokens stop working and it takes no more deliveries or other writes; the admin
              token can still read it. This cannot be undone.
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}

/** The new token, shown once: selected for copying, never kept anywhere but the console's own sign-in. */
function NewToken(props: { token: string }) {
  return (
    <div role="status" class="result">
      <p>Token rotated: the old token no longer works. Copy the new one now, it is shown only this once.</p>
      <label for="new-token">New token</label>{' '}
      <input
        id="new-token"
        type="text"
        readOnly
        size={48}
        value={props.token}
        autocomplete="off"
        spellcheck={false}
        onFocus={(event) => event.currentTarget.select()}
      />{' '}
      <span class="hint">Select it and copy it (Ctrl+C or ⌘C).</span>
    </div>
  );
}
