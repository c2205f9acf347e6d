import { useMemo } from 'preact/hooks';
import { AdminOnly } from '../components/admin-only.js';
import { Loading } from '../components/loading.js';
import { usePage } from '../components/pager.js';
import { ProblemMessage } from '../components/problem-message.js';
import { groupRefusals } from '../components/refusal-groups.js';
import { RefusalsTable } from '../components/refusals-table.js';
import { useResource } from '../components/use-resource.js';
import type { ViewProps } from './view-props.js';

// The most the database keeps (spec section 12.1), paged here.
const REFUSALS_LIMIT = 1000;

/** What the nodes refused lately (`GET /v1/admin/refusals`, kept in the database), newest first. */
export function RefusalsView(props: ViewProps) {
  const admin = props.identity.kind === 'admin';
  const [refusals, reload] = useResource(
    (signal) => (admin ? props.clients.api.refusals({ limit: REFUSALS_LIMIT }, { signal }) : Promise.resolve(undefined)),
    [props.clients, admin],
  );
  // A supervisor retrying a refused delivery is refused the same way each time: one row, with how often.
  const groups = useMemo(() => groupRefusals(refusals.status === 'ready' ? (refusals.data?.refusals ?? []) : []), [refusals]);
  const { rows, pager } = usePage(groups);
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
            What the nodes answered with a refusal lately: kept in the database, the newest {REFUSALS_LIMIT} of the whole cluster. A
            collision names the original&apos;s sequence and the fields that differ (never their values); its command id leads to the
            search. Refusals that say the same (a supervisor retrying) are one row, with how often.{' '}
            <button type="button" onClick={reload}>
              Refresh
            </button>
          </p>
          {rows.length === 0 ? (
            <p>No refusals.</p>
          ) : (
            <>
              <RefusalsTable refusals={rows} caption="Recent refusals, newest first" />
              {pager}
            </>
          )}
        </>
      )}
    </>
  );
}
