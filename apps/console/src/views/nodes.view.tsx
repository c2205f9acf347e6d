import { AdminOnly } from '../components/admin-only.js';
import { IdText } from '../components/id-text.js';
import { Loading } from '../components/loading.js';
import { ProblemMessage } from '../components/problem-message.js';
import { Instant } from '../components/time-text.js';
import { useResource } from '../components/use-resource.js';
import type { ViewProps } from './view-props.js';

/**
 * The nodes that share the database, each with its id (what an owner_unavailable problem names),
 * and how many sessions each owns (`GET /v1/admin/nodes`); a node restarted at its address is one row.
 */
export function NodesView(props: ViewProps) {
  const admin = props.identity.kind === 'admin';
  const [nodes] = useResource(
    (signal) => (admin ? props.clients.api.nodes({ signal }) : Promise.resolve(undefined)),
    [props.clients, admin],
  );
  return (
    <>
      <h1 tabIndex={-1}>Nodes</h1>
      {!admin ? (
        <AdminOnly identity={props.identity} />
      ) : nodes.status === 'loading' ? (
        <Loading what="nodes" />
      ) : nodes.status === 'failed' ? (
        <ProblemMessage error={nodes.error} />
      ) : (
        <table>
          <caption>Nodes</caption>
          <thead>
            <tr>
              <th scope="col">Node id</th>
              <th scope="col">Node URL</th>
              <th scope="col">Liveness</th>
              <th scope="col">Last heartbeat</th>
              <th scope="col">Sessions owned</th>
            </tr>
          </thead>
          <tbody>
            {nodes.data!.nodes.map((node) => (
              <tr key={node.node_id}>
                <td>
                  <IdText id={node.node_id} />
                </td>
                <td>
                  <code class="id">{node.node_url}</code>
                </td>
                <td class={node.live ? undefined : 'closed'}>{node.live ? 'live' : 'dead: its heartbeat expired'}</td>
                <td>
                  <Instant at={node.last_heartbeat_at} />
                </td>
                <td class="number">{node.sessions}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
