import { SharedDatabaseTopology } from './shared-database.topology.js';
import { SingleNodeTopology } from './single-node.topology.js';
import { topologyFor } from './topology-for.js';

describe('topologyFor', () => {
  const ways = { oneNode: () => 'one node', sharedDatabase: () => 'shared database' };

  it('is a shared database where the dialect says several nodes may share it, and builds its way of a part', () => {
    const topology = topologyFor({ shared: true });
    expect(topology).toBeInstanceOf(SharedDatabaseTopology);
    expect(topology.choose(ways)).toBe('shared database');
  });

  it('is one node otherwise, and builds the one-node way', () => {
    const topology = topologyFor({ shared: false });
    expect(topology).toBeInstanceOf(SingleNodeTopology);
    expect(topology.choose(ways)).toBe('one node');
  });
});
