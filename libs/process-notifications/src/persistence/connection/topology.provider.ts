import type { Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { Topology } from '../../topology/topology.js';
import { topologyFor } from '../../topology/topology-for.js';
import { storeDialectOf } from '../dialects/store-dialects.js';

/** The topology of a data source's database: several nodes where its dialect says it is shared. */
export function topologyOf(dataSource: DataSource): Topology {
  return topologyFor(storeDialectOf(dataSource));
}

/** {@link Topology}, chosen once for the module's connection. */
export const TOPOLOGY_PROVIDER: Provider = {
  provide: Topology,
  useFactory: topologyOf,
  inject: [getDataSourceToken(PN_CONNECTION)],
};
