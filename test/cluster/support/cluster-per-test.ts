import type { DataSource } from 'typeorm';
import { freshSchema } from '../../support/postgres.js';
import type { Cluster } from './cluster.js';

/** What one test of a {@link clusterPerTest} suite starts; stopped and dropped after it. */
export interface ClusterTestState {
  /** The fresh schema's URL, for the nodes and the test's own connection. */
  databaseUrl: string;
  cluster?: Cluster;
  db?: DataSource;
}

/**
 * Registers the hooks of a suite whose every test runs its own cluster on a fresh schema of the
 * shared PostgreSQL: the schema is created before each test, and after it every node is resumed
 * (a test may have frozen one) and killed, the test's connection closed and the schema dropped.
 */
export function clusterPerTest(admin: DataSource): ClusterTestState {
  const state: ClusterTestState = { databaseUrl: '' };
  let schemaName = '';
  beforeEach(async () => {
    const schema = freshSchema();
    schemaName = schema.name;
    state.databaseUrl = schema.databaseUrl;
    await admin.query(`CREATE SCHEMA "${schema.name}"`);
  });
  afterEach(async () => {
    for (const node of state.cluster?.nodes ?? []) node.signal('SIGCONT');
    await state.cluster?.stop();
    await state.db?.destroy();
    state.cluster = undefined;
    state.db = undefined;
    await admin.query(`DROP SCHEMA IF EXISTS "${schemaName}" CASCADE`);
  });
  afterAll(async () => {
    await admin.destroy();
  });
  return state;
}
