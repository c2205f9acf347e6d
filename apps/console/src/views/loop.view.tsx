import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  MAX_CONSUME_BATCH,
  type AdminLoop,
  type JournalRecord,
  type Loop,
  type PendingNotification,
  type ProcessNotificationsClient,
} from 'process-notifications-client';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { IdText } from '../components/id-text.js';
import { Link } from '../components/link.js';
import { Loading } from '../components/loading.js';
import { LoopStateText } from '../components/loop-state-text.js';
import { FiguresLegend, LoopConditionText } from '../components/loop-condition.js';
import { OutcomeText, outcomeOf } from '../components/outcome-text.js';
import { usePage } from '../components/pager.js';
import { ProblemMessage } from '../components/problem-message.js';
import { Age, Instant, useNow } from '../components/time-text.js';
import { useResource } from '../components/use-resource.js';
import { LoopHistory, type JournaledNotification } from '../journal/loop-history.js';
import { useSessionJournal, type LiveStatus } from '../journal/use-session-journal.js';
import { routeHref, type ConsoleRoute } from '../routing/console-route.js';
import type { ViewProps } from './view-props.js';

type LoopRoute = Extract<ConsoleRoute, { view: 'loop' }>;

interface LoopState {
  readonly loop: Loop;
  /** Its session is closed: the loop takes no more deliveries, stops or consumes (`409 session_closed`). */
  readonly sessionClosed: boolean;
  readonly pending: readonly PendingNotification[];
  /** From the admin API; undefined for a session token (then counted from the journal). */
  readonly admin: AdminLoop | undefined;
}

/** One row of the unconsumed list: pending in the loop's set, or refused by the loop. */
interface UnconsumedRow {
  readonly commandId: string;
  readonly pending: PendingNotification | undefined;
  readonly journaled: JournaledNotification | undefined;
}

// A burst of records (catching up, a busy loop) refetches the loop once, not once per record.
const REFRESH_DEBOUNCE_MS = 150;

/** The loop's figures as the database keeps them (admin only), found among its session's loops. */
async function adminLoopOf(api: ProcessNotificationsClient, route: LoopRoute, signal: AbortSignal): Promise<AdminLoop | undefined> {
  let cursor: string | undefined;
  do {
    const page = await api.adminLoops({ session_id: route.sessionId, limit: 1000, ...(cursor ? { cursor } : {}) }, { signal });
    const entry = page.loops.find((loop) => loop.loop_id === route.loopId);
    if (entry) return entry;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return undefined;
}

type Confirming =
  | { readonly action: 'stop' }
  | { readonly action: 'consume'; readonly commandId: string }
  | { readonly action: 'consume-selected'; readonly commandIds: readonly string[] };
type ActionResult = { readonly ok: string } | { readonly failed: unknown };

/**
 * Consumes `commandIds` in batches of at most {@link MAX_CONSUME_BATCH} (one request and one
 * journal transaction each) and says what happened to them, counted from the answers.
 */
async function consumeAll(
  api: ProcessNotificationsClient,
  sessionId: string,
  loopId: string,
  commandIds: readonly string[],
): Promise<string> {
  let consumed = 0;
  let already = 0;
  let notFound = 0;
  for (let start = 0; start < commandIds.length; start += MAX_CONSUME_BATCH) {
    const batch = commandIds.slice(start, start + MAX_CONSUME_BATCH);
    const { results } = await api.consumeMany(sessionId, loopId, batch, { retry: false });
    for (const result of results) {
      if ('code' in result) notFound += 1;
      else if (result.consumed) consumed += 1;
      else already += 1;
    }
  }
  const parts = [`Consumed ${consumed} of ${commandIds.length} selected notifications`];
  if (already > 0) parts.push(`${already} already consumed`);
  if (notFound > 0) parts.push(`${notFound} not found`);
  return `${parts.join('; ')}.`;
}

// The loop's figures for its condition: the admin API's when there, else counted from the journal.
function loopFigures(data: LoopState, history: LoopHistory) {
  return {
    state: data.loop.state,
    capacity: data.loop.capacity,
    unconsumed: data.admin?.unconsumed ?? history.unconsumed,
    oldest_unconsumed_at: data.admin ? data.admin.oldest_unconsumed_at : (history.unconsumedNotifications[0]?.createdAt ?? null),
  };
}

// What a confirmed action did, in words; throws when it failed.
async function runAction(api: ProcessNotificationsClient, sessionId: string, loopId: string, what: Confirming): Promise<string> {
  if (what.action === 'stop') {
    const loop = await api.stopLoop(sessionId, loopId, { retry: false });
    return `Loop stopped: its state is ${loop.state}; later deliveries to it answer stopped.`;
  }
  if (what.action === 'consume-selected') return consumeAll(api, sessionId, loopId, what.commandIds);
  const consumption = await api.consume(sessionId, loopId, what.commandId, { retry: false });
  return consumption.consumed
    ? `Consumed ${what.commandId} (journal sequence ${consumption.sequence}).`
    : `${what.commandId} was already consumed (journal sequence ${consumption.sequence}).`;
}

/**
 * One loop: its counts and condition, its unconsumed notifications (pending, or refused by the
 * loop; each with `Consume`), each process handle's lifecycle, `Stop loop`, and the journal as a
 * live timeline (this loop's records unless asked for the whole session's).
 */
export function LoopView(props: ViewProps & { route: LoopRoute }) {
  const { sessionId, loopId } = props.route;
  const { api } = props.clients;
  const admin = props.identity.kind === 'admin';
  const now = useNow();
  const [state, reload] = useResource<LoopState>(
    async (signal) => {
      const [loop, pending, adminLoop, session] = await Promise.all([
        api.getLoop(sessionId, loopId, { signal }),
        api.pendingNotifications(sessionId, loopId, { signal }),
        admin ? adminLoopOf(api, props.route, signal) : Promise.resolve(undefined),
        api.getSession(sessionId, { signal }),
      ]);
      return { loop, sessionClosed: session.state === 'closed', pending: pending.notifications, admin: adminLoop };
    },
    [api, admin, sessionId, loopId],
  );

  const history = useMemo(() => new LoopHistory(loopId), [sessionId, loopId]);
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refreshTimer.current), []);
  const onRecord = useCallback(
    (record: JournalRecord) => {
      if (!history.add(record)) return;
      clearTimeout(refreshTimer.current);
      refreshTimer.current = setTimeout(reload, REFRESH_DEBOUNCE_MS);
    },
    [history, reload],
  );
  const journal = useSessionJournal(props.clients, sessionId, onRecord);

  const [confirming, setConfirming] = useState<Confirming | undefined>(undefined);
  const [result, setResult] = useState<ActionResult | undefined>(undefined);
  const [acting, setActing] = useState(false);
  // Command ids ticked for `Consume selected`, across the pages of the list.
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    setResult(undefined);
    setSelected(new Set());
  }, [sessionId, loopId]);
  const toggle = (commandId: string, on: boolean): void =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (on) next.add(commandId);
      else next.delete(commandId);
      return next;
    });
  const act = async (what: Confirming): Promise<void> => {
    setConfirming(undefined);
    setActing(true);
    setResult(undefined);
    try {
      setResult({ ok: await runAction(api, sessionId, loopId, what) });
      if (what.action === 'consume-selected') setSelected(new Set());
    } catch (error) {
      setResult({ failed: error });
    } finally {
      setActing(false);
      reload();
    }
  };

  const data = state.status === 'failed' ? undefined : state.data;
  // Every unconsumed notification: the pending ones (the loop's set), then those the journal
  // holds for the loop without a consumed record that the set does not (refused: it was full,
  // or the loop stopped), in journal order.
  const unconsumedRows = useMemo((): UnconsumedRow[] => {
    const pending = data?.pending ?? [];
    const inSet = new Set(pending.map((notification) => notification.command_id));
    const journaled = new Map(history.unconsumedNotifications.map((notification) => [notification.commandId, notification]));
    return [
      ...pending.map((notification) => ({
        commandId: notification.command_id,
        pending: notification,
        journaled: journaled.get(notification.command_id),
      })),
      ...history.unconsumedNotifications
        .filter((notification) => !inSet.has(notification.commandId))
        .map((notification) => ({ commandId: notification.commandId, pending: undefined, journaled: notification })),
    ];
  }, [data, history, journal.records]);
  const { rows: unconsumedPage, pager: unconsumedPager } = usePage(unconsumedRows, loopId);
  // Only what is still unconsumed stays selected: a row consumed elsewhere leaves the selection.
  const selectedIds = unconsumedRows.filter((row) => selected.has(row.commandId)).map((row) => row.commandId);
  const unconsumed = data?.admin?.unconsumed ?? history.unconsumed;
  const figures = data && loopFigures(data, history);
  return (
    <>
      <p class="breadcrumb">
        <Link href={routeHref({ view: 'session', sessionId })}>
          Session <IdText id={sessionId} />
        </Link>
      </p>
      <h1 tabIndex={-1}>
        Loop <IdText id={loopId} />
      </h1>
      {state.status === 'loading' && !data ? (
        <Loading what="the loop" />
      ) : state.status === 'failed' && !data ? (
        <ProblemMessage error={state.error} />
      ) : (
        data && (
          <>
            {state.status === 'failed' && <ProblemMessage error={state.error} />}
            <dl class="counts">
              <div>
                <dt>State</dt>
                <dd>
                  <LoopStateText state={data.loop.state} sessionClosed={data.sessionClosed} />
                </dd>
              </div>
              <div>
                <dt>Engine</dt>
                <dd>{data.loop.engine}</dd>
              </div>
              <div>
                <dt>Capacity</dt>
                <dd>{data.loop.capacity}</dd>
              </div>
              <div>
                <dt>Pending</dt>
                <dd>{data.loop.pending}</dd>
              </div>
              <div>
                <dt>Unconsumed</dt>
                <dd>{unconsumed}</dd>
              </div>
            </dl>
            <div class="loop-condition">
              <span class="label">Condition:</span> <LoopConditionText loop={figures!} now={now} />
            </div>
            <FiguresLegend />
            {data.sessionClosed && (
              <p role="status" class="closed-session">
                Its session is closed: this loop takes no more deliveries, and nothing here can be stopped or consumed any more.
              </p>
            )}
            <p class="actions">
              <button
                type="button"
                class="danger"
                disabled={acting || data.sessionClosed || data.loop.state === 'stopped'}
                onClick={() => setConfirming({ action: 'stop' })}
              >
                Stop loop
              </button>
            </p>
            <div aria-live="polite">
              {acting && <p class="loading">Working…</p>}
              {result && 'ok' in result && (
                <p role="status" class="result">
                  {result.ok}
                </p>
              )}
            </div>
            {result && 'failed' in result && <ProblemMessage error={result.failed} />}

            <h2>Unconsumed notifications</h2>
            {unconsumedRows.length === 0 ? (
              <p>No notification is unconsumed.</p>
            ) : (
              <>
                <p class="actions bulk">
                  <button
                    type="button"
                    disabled={acting || data.sessionClosed}
                    onClick={() => setSelected(new Set(unconsumedRows.map((row) => row.commandId)))}
                  >
                    Select all {unconsumedRows.length}
                  </button>{' '}
                  <button type="button" disabled={acting || selectedIds.length === 0} onClick={() => setSelected(new Set())}>
                    Clear selection
                  </button>{' '}
                  <button
                    type="button"
                    disabled={acting || data.sessionClosed || selectedIds.length === 0}
                    onClick={() => setConfirming({ action: 'consume-selected', commandIds: selectedIds })}
                  >
                    Consume selected ({selectedIds.length})
                  </button>
                </p>
                <table>
                  <caption>Unconsumed notifications: pending, or refused by the loop; oldest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Select</th>
                      <th scope="col">Command id</th>
                      <th scope="col">Status</th>
                      <th scope="col">Process handle</th>
                      <th scope="col">State/reason</th>
                      <th scope="col">Age</th>
                      <th scope="col">Outcome</th>
                      <th scope="col">Action</th>
                    </tr>
                  </thead>
                  <tbody>
                    {unconsumedPage.map((row) => {
                      const handle = row.pending?.process_handle ?? row.journaled?.processHandle;
                      const stateText = row.pending
                        ? `${row.pending.state}/${row.pending.reason}`
                        : row.journaled?.state
                          ? `${row.journaled.state}/${row.journaled.reason ?? ''}`
                          : undefined;
                      return (
                        <tr key={row.commandId} data-status={row.pending ? 'pending' : 'refused'}>
                          <td>
                            <input
                              type="checkbox"
                              aria-label={`Select ${row.commandId}`}
                              disabled={data.sessionClosed}
                              checked={selected.has(row.commandId)}
                              onChange={(event) => toggle(row.commandId, event.currentTarget.checked)}
                            />
                          </td>
                          <td>
                            <IdText id={row.commandId} />
                          </td>
                          <td>
                            {row.pending
                              ? 'pending'
                              : data.loop.state === 'stopped'
                                ? 'left: the loop is stopped'
                                : 'refused: the loop’s set was full'}
                          </td>
                          <td>{handle ? <code>{handle}</code> : <span class="none">dropped (retention)</span>}</td>
                          <td>{stateText ?? <span class="none">dropped (retention)</span>}</td>
                          <td>
                            <Age at={row.journaled?.createdAt ?? (row.pending && history.journaledAtOf(row.pending.sequence))} now={now} />
                          </td>
                          <td>
                            {row.pending ? <OutcomeText outcome={outcomeOf(row.pending)} /> : <span class="none">see the search</span>}
                          </td>
                          <td>
                            <button
                              type="button"
                              disabled={acting || data.sessionClosed}
                              aria-label={`Consume ${row.commandId}`}
                              onClick={() => setConfirming({ action: 'consume', commandId: row.commandId })}
                            >
                              Consume
                            </button>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
                {unconsumedPager}
              </>
            )}
          </>
        )
      )}

      <h2>Processes</h2>
      <LifecycleTable history={history} records={journal.records} />

      <h2>Journal</h2>
      <Timeline records={journal.records} status={journal.status} loopId={loopId} />

      {confirming && (
        <ConfirmDialog
          title={
            confirming.action === 'stop'
              ? 'Stop loop?'
              : confirming.action === 'consume'
                ? 'Consume notification?'
                : `Consume ${confirming.commandIds.length} notifications?`
          }
          onCancel={() => setConfirming(undefined)}
          onConfirm={() => void act(confirming)}
        >
          {confirming.action === 'stop' ? (
            <p>
              Stop loop <IdText id={loopId} />? Every later delivery to it answers stopped; this cannot be undone.
            </p>
          ) : confirming.action === 'consume-selected' ? (
            <p>
              Consume the {confirming.commandIds.length} selected notifications? They leave the pending set, as if the loop had handled
              them.
            </p>
          ) : (
            <p>
              Consume notification <IdText id={confirming.commandId} />? It leaves the pending set, as if the loop had handled it.
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}

function LifecycleTable(props: { history: LoopHistory; records: readonly JournalRecord[] }) {
  // Redrawn whenever records arrive; the history has folded them in already.
  const lifecycles = useMemo(() => props.history.lifecycles, [props.history, props.records]);
  const { rows, pager } = usePage(lifecycles);
  if (lifecycles.length === 0) return <p>No lifecycle record for this loop yet.</p>;
  return (
    <>
      <table>
        <caption>Lifecycle of each process handle of this loop, most recently active first</caption>
        <thead>
          <tr>
            <th scope="col">Process handle</th>
            <th scope="col">Started</th>
            <th scope="col">Backgrounded</th>
            <th scope="col">Stop requested</th>
            <th scope="col">Completed or lost</th>
            <th scope="col">State/reason</th>
            <th scope="col">Exit code or signal</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((handle) => (
            <tr key={handle.processHandle}>
              <td>
                <code>{handle.processHandle}</code>
              </td>
              <td>
                <Instant at={handle.at.started} />
              </td>
              <td>
                <Instant at={handle.at.backgrounded} />
              </td>
              <td>
                <Instant at={handle.at.stop_requested} />
              </td>
              <td>
                {handle.at.completed ? (
                  <>
                    completed <Instant at={handle.at.completed} />
                  </>
                ) : handle.at.lost ? (
                  <>
                    lost <Instant at={handle.at.lost} />
                  </>
                ) : (
                  <span class="none">not yet</span>
                )}
              </td>
              <td>
                {handle.state}
                {handle.reason ? `/${handle.reason}` : ''}
              </td>
              <td>{handle.exitCode ?? (handle.signal ? <code>{handle.signal}</code> : <span class="none">none</span>)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {pager}
    </>
  );
}

const statusText = (status: LiveStatus): string => {
  switch (status.state) {
    case 'connecting':
      return 'Connecting to the live journal…';
    case 'live':
      return 'Live: new records appear as they are journaled.';
    case 'reconnecting':
      return `Reconnecting (resumes after the last record shown): ${status.reason}`;
    case 'failed':
      return `Live updates stopped: ${status.reason}`;
  }
};

/** What a record is about, in a few words. */
function recordSummary(record: JournalRecord): string {
  const payload = (record.payload ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  if (record.kind === 'process_notification') parts.push(`command ${record.idempotency_id}`);
  if (record.cause_command_id) parts.push(`command ${record.cause_command_id}`);
  if (typeof payload.process_handle === 'string') parts.push(`handle ${payload.process_handle}`);
  if (typeof payload.state === 'string') parts.push(`${payload.state}${typeof payload.reason === 'string' ? `/${payload.reason}` : ''}`);
  if (payload.has_exit_code === true) parts.push(`exit code ${String(payload.exit_code)}`);
  if (typeof payload.signal === 'string') parts.push(`signal ${payload.signal}`);
  if (record.payload === null) parts.push('payload dropped (retention)');
  return parts.join(', ');
}

function Timeline(props: { records: readonly JournalRecord[]; status: LiveStatus; loopId: string }) {
  // This loop's records by default: a busy session's other loops would bury them.
  const [onlyThisLoop, setOnlyThisLoop] = useState(true);
  const shown = useMemo(() => {
    const newestFirst = [...props.records].reverse();
    return onlyThisLoop ? newestFirst.filter((record) => record.loop_id === props.loopId) : newestFirst;
  }, [props.records, onlyThisLoop, props.loopId]);
  const { rows, pager } = usePage(shown, onlyThisLoop);
  return (
    <section aria-label="Session journal timeline">
      <p role="status" class={`live ${props.status.state}`}>
        {statusText(props.status)}
      </p>
      <p>
        <input
          id="timeline-this-loop"
          type="checkbox"
          checked={onlyThisLoop}
          onChange={(event) => setOnlyThisLoop(event.currentTarget.checked)}
        />{' '}
        <label for="timeline-this-loop">Only this loop&apos;s records</label>
      </p>
      {shown.length === 0 ? (
        <p>{onlyThisLoop ? 'No journal record of this loop yet.' : 'No journal record yet.'}</p>
      ) : (
        <>
          <table class="timeline">
            <caption>{onlyThisLoop ? 'Journal of this loop, newest first' : 'Session journal, newest first'}</caption>
            <thead>
              <tr>
                <th scope="col">Sequence</th>
                <th scope="col">Journaled</th>
                <th scope="col">Kind</th>
                <th scope="col">Loop id</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((record) => (
                <tr key={record.sequence} data-sequence={record.sequence}>
                  <td class="number">{record.sequence}</td>
                  <td>
                    <Instant at={record.created_at} />
                  </td>
                  <td>{record.kind}</td>
                  <td>
                    <IdText id={record.loop_id} />
                  </td>
                  <td>{recordSummary(record)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {pager}
        </>
      )}
    </section>
  );
}
