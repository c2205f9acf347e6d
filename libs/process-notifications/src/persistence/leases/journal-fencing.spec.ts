import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SessionLeases } from './session-leases.service.js';
import { OwnerUnavailableError } from '../../errors/owner-unavailable.error.js';
import { dataSourceOptionsFromUrl } from '../connection/data-source-options.js';
import { JournalFencing } from './journal-fencing.js';
import { topologyOf } from '../connection/topology.provider.js';

// Fencing as the writer builds it: for its leases' data source's topology.
const fencingOf = (leases: SessionLeases, dataSource: DataSource): JournalFencing => new JournalFencing(leases, topologyOf(dataSource));

// Which lease a unit of work is queued with. The check inside the transaction (the lease row
// FOR UPDATE) runs on a real PostgreSQL in test/journal/journal-writer-postgres.int-spec.ts.
describe('journal fencing', () => {
  // Neither data source is initialized: choosing a fence needs no connection.
  const postgresSource = new DataSource(dataSourceOptionsFromUrl('postgres://127.0.0.1:5432/test'));
  const postgres = () => new SessionLeases(postgresSource);

  it('fences nothing on SQLite, where one process owns every session', () => {
    const sqlite = new DataSource(dataSourceOptionsFromUrl('sqlite::memory:'));
    const fencing = fencingOf(new SessionLeases(sqlite), sqlite);
    expect(fencing.fenceFor(randomUUID())).toBeUndefined();
  });

  it('fences nothing for work that names no session', () => {
    expect(fencingOf(postgres(), postgresSource).fenceFor(undefined)).toBeUndefined();
  });

  it('queues work for a session at the epoch this node holds it, and refuses it when it holds none', () => {
    const leases = postgres();
    const fencing = fencingOf(leases, postgresSource);
    const [held, other] = [randomUUID(), randomUUID()];
    leases.hold(held, 3);
    expect(fencing.fenceFor(held)).toEqual({ sessionId: held, epoch: 3 });
    expect(() => fencing.fenceFor(other)).toThrow(OwnerUnavailableError);
  });

  it('forgets a session found fenced only if this node still holds it at that epoch', () => {
    const leases = postgres();
    const fencing = fencingOf(leases, postgresSource);
    const lost: string[] = [];
    leases.lost$.subscribe((sessionId) => lost.push(sessionId));
    const sessionId = randomUUID();
    leases.hold(sessionId, 4);
    fencing.forget({ sessionId, epoch: 3 });
    expect(fencing.fenceFor(sessionId)).toEqual({ sessionId, epoch: 4 });
    fencing.forget({ sessionId, epoch: 4 });
    expect(lost).toEqual([sessionId]);
    expect(() => fencing.fenceFor(sessionId)).toThrow(OwnerUnavailableError);
  });
});
