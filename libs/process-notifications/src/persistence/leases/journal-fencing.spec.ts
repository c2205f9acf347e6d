import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SessionLeases } from './session-leases.service.js';
import { OwnerUnavailableError } from '../../errors/owner-unavailable.error.js';
import { dataSourceOptionsFromUrl } from '../connection/data-source-options.js';
import { JournalFencing } from './journal-fencing.js';

// Which lease a unit of work is queued with. The check inside the transaction (the lease row
// FOR UPDATE) runs on a real PostgreSQL in test/journal/journal-writer-postgres.int-spec.ts.
describe('journal fencing', () => {
  // Neither data source is initialized: choosing a fence needs no connection.
  const postgres = () => new SessionLeases(new DataSource(dataSourceOptionsFromUrl('postgres://127.0.0.1:5432/test')));

  it('fences nothing on SQLite, where one process owns every session', () => {
    const fencing = new JournalFencing(new SessionLeases(new DataSource(dataSourceOptionsFromUrl('sqlite::memory:'))));
    expect(fencing.fenceFor(randomUUID())).toBeUndefined();
  });

  it('fences nothing for work that names no session', () => {
    expect(new JournalFencing(postgres()).fenceFor(undefined)).toBeUndefined();
  });

  it('queues work for a session at the epoch this node holds it, and refuses it when it holds none', () => {
    const leases = postgres();
    const fencing = new JournalFencing(leases);
    const [held, other] = [randomUUID(), randomUUID()];
    leases.hold(held, 3);
    expect(fencing.fenceFor(held)).toEqual({ sessionId: held, epoch: 3 });
    expect(() => fencing.fenceFor(other)).toThrow(OwnerUnavailableError);
  });

  it('forgets a session found fenced only if this node still holds it at that epoch', () => {
    const leases = postgres();
    const fencing = new JournalFencing(leases);
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
