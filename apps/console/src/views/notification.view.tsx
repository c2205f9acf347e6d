import { ProblemError } from 'process-notifications-client';
import { AdminOnly } from '../components/admin-only.js';
import { LoopLink, SessionLink } from '../components/entity-link.js';
import { IdText } from '../components/id-text.js';
import { Loading } from '../components/loading.js';
import { OutcomeText, outcomeOf } from '../components/outcome-text.js';
import { ProblemMessage } from '../components/problem-message.js';
import { groupRefusals } from '../components/refusal-groups.js';
import { RefusalsTable } from '../components/refusals-table.js';
import { Instant } from '../components/time-text.js';
import { useResource } from '../components/use-resource.js';
import type { ConsoleRoute } from '../routing/console-route.js';
import type { ViewProps } from './view-props.js';

/**
 * Where a notification went, by its command id (`GET /v1/admin/notifications/:command_id`): the
 * sessions that journaled it, and beside them the deliveries under that id that were refused
 * (a collision says which fields differed from the original's).
 */
export function NotificationView(props: ViewProps & { route: Extract<ConsoleRoute, { view: 'notification' }> }) {
  const admin = props.identity.kind === 'admin';
  const { commandId } = props.route;
  const [found] = useResource(
    (signal) => (admin ? props.clients.api.findNotification(commandId, { signal }) : Promise.resolve(undefined)),
    [props.clients, admin, commandId],
  );
  const notFound = found.status === 'failed' && found.error instanceof ProblemError && found.error.code === 'not_found';
  // Not journaled (404): a delivery under this id may still have been refused (a loop that does
  // not exist, say); the refusals list, bounded, says so.
  const [refusedOnly] = useResource(
    (signal) =>
      notFound
        ? props.clients.api
            .refusals({ limit: 1000 }, { signal })
            .then((page) => page.refusals.filter((r) => r.command_id === commandId.toLowerCase()))
        : Promise.resolve([]),
    [props.clients, notFound, commandId],
  );
  const refusedOnlyRows = refusedOnly.status === 'ready' ? refusedOnly.data : [];
  return (
    <>
      <h1 tabIndex={-1}>
        Command id <IdText id={commandId} />
      </h1>
      {!admin ? (
        <AdminOnly identity={props.identity} />
      ) : found.status === 'loading' ? (
        <Loading what="where this notification is" />
      ) : notFound ? (
        <>
          <p role="status" class="not-found">
            Not found: no session has journaled a notification with command id <IdText id={commandId} />.
          </p>
          {refusedOnlyRows.length > 0 && (
            <RefusalsTable refusals={groupRefusals(refusedOnlyRows)} caption="Refused deliveries with this command id, newest first" />
          )}
        </>
      ) : found.status === 'failed' ? (
        <ProblemMessage error={found.error} />
      ) : (
        <>
          <table>
            <caption>Where this notification is, one row per session that journaled it</caption>
            <thead>
              <tr>
                <th scope="col">Session id</th>
                <th scope="col">Loop id</th>
                <th scope="col">Loop state</th>
                <th scope="col">Sequence</th>
                <th scope="col">Process handle</th>
                <th scope="col">State/reason</th>
                <th scope="col">Journaled</th>
                <th scope="col">Consumed</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {found.data!.notifications.map((entry) => (
                <tr key={`${entry.session_id}/${entry.sequence}`}>
                  <td>
                    <SessionLink sessionId={entry.session_id} />
                  </td>
                  <td>
                    <LoopLink sessionId={entry.session_id} loopId={entry.loop_id} />
                  </td>
                  <td>{entry.loop_state ?? <span class="none">unknown</span>}</td>
                  <td class="number">{entry.sequence}</td>
                  <td>{entry.process_handle ? <code>{entry.process_handle}</code> : <span class="none">dropped (retention)</span>}</td>
                  <td>{entry.state ? `${entry.state}/${entry.reason}` : <span class="none">dropped (retention)</span>}</td>
                  <td>
                    <Instant at={entry.created_at} />
                  </td>
                  <td>{entry.consumed_sequence === null ? 'not yet' : `yes, sequence ${entry.consumed_sequence}`}</td>
                  <td>
                    <OutcomeText outcome={outcomeOf(entry)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {found.data!.refusals.length > 0 ? (
            <RefusalsTable refusals={groupRefusals(found.data!.refusals)} caption="Refused deliveries with this command id, newest first" />
          ) : (
            <p>No delivery with this command id was refused (of the refusals kept).</p>
          )}
        </>
      )}
    </>
  );
}
