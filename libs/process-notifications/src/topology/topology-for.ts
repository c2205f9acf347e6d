import { SharedDatabaseTopology } from './shared-database.topology.js';
import { SingleNodeTopology } from './single-node.topology.js';
import type { Topology } from './topology.js';

/**
 * The one place that decides single node or shared database (issue 49): the topology of a
 * database whose store dialect says whether several nodes may share it. The module's `Topology`
 * provider asks it once; everything else asks the `Topology` it is given.
 */
export function topologyFor(database: { readonly shared: boolean }): Topology {
  return database.shared ? new SharedDatabaseTopology() : new SingleNodeTopology();
}
