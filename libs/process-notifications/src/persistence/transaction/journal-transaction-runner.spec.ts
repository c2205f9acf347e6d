import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { DataSource, type AfterQueryEvent, type EntitySubscriberInterface } from 'typeorm';
import { JournalUnavailableError } from '../../errors/journal-unavailable.error.js';
import type { JournalDraft } from '../journal/journal-draft.interface.js';
import { dataSourceOptionsFromUrl } from '../connection/data-source-options.js';
import type { JournalRecord } from '../../model/journal-record.interface.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { SessionLeases } from '../leases/session-leases.service.js';
import { JournalHealth } from '../health/journal-health.service.js';
import { notificationDraft } from '../../../../../test/support/notification-fixture.js';

const SESSION = randomUUID();
const LOOP = randomUUID();

const draft = (idempotencyId?: string): JournalDraft => notificationDraft({ sessionId: SESSION, loopId: LOOP, idempotencyId });

// Fail closed on a real in-memory SQLite connection put in the states the writer guards
// against: closed, left inside a transaction it cannot roll back, and inside a transaction
// right after a COMMIT that returned.
describe('JournalWriter on a SQLite connection in a bad state', () => {
  let dataSource: DataSource;
  let db: Database.Database;
  let writer: JournalWriter;
  let published: JournalRecord[];

  beforeEach(async () => {
    dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
    db = (dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
    writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    published = [];
    writer.records$.subscribe((record) => published.push(record));
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    if (dataSource.isInitialized) await dataSource.destroy();
  });

  it('refuses every write while its DataSource is closed, saying so', async () => {
    await dataSource.destroy();
    const refused = writer.append(draft());
    await expect(refused).rejects.toBeInstanceOf(JournalUnavailableError);
    await expect(refused).rejects.toThrow('journal unavailable: the database connection is closed');
    expect(published).toEqual([]);
  });

  it('fails closed while the connection is stuck in a transaction it cannot roll back, and repairs it once it can', async () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    // A transaction with a statement still being read: better-sqlite3 refuses ROLLBACK meanwhile.
    db.exec('BEGIN');
    db.exec("INSERT INTO pn_sessions (session_id, token_hash, created_at) VALUES ('00000000-0000-4000-8000-000000000001', NULL, 'x')");
    const reading = db.prepare('SELECT session_id FROM pn_sessions').iterate();
    reading.next();

    const refused = writer.append(draft());
    await expect(refused).rejects.toBeInstanceOf(JournalUnavailableError);
    await expect(refused).rejects.toThrow('journal unavailable: the SQLite connection is stuck in a transaction');
    expect(warned).toHaveBeenCalledWith(expect.stringMatching(/^ROLLBACK failed: .*busy/));
    expect(published).toEqual([]);

    reading.return!();
    const retry = draft();
    await expect(writer.append(retry)).resolves.toMatchObject({ appended: true });
    expect(db.inTransaction).toBe(false);
    // The stray transaction was rolled back, the append committed.
    expect(await dataSource.query('SELECT COUNT(*) AS n FROM pn_sessions')).toEqual([{ n: 0 }]);
    expect(await dataSource.query('SELECT idempotency_id FROM pn_journal')).toEqual([{ idempotency_id: retry.idempotencyId }]);
  });

  it('does not acknowledge a batch when the connection is inside a transaction right after COMMIT returned', async () => {
    // A subscriber that opens a transaction behind the writer's back the moment COMMIT returns.
    let armed = true;
    const beginAfterCommit: EntitySubscriberInterface = {
      afterQuery: (event: AfterQueryEvent) => {
        if (armed && event.query === 'COMMIT') {
          armed = false;
          db.exec('BEGIN');
        }
      },
    };
    dataSource.subscribers.push(beginAfterCommit);
    const first = draft();
    const answer = writer.append(first);
    await expect(answer).rejects.toBeInstanceOf(JournalUnavailableError);
    await expect(answer).rejects.toThrow('journal unavailable: COMMIT returned but the connection is still in a transaction');
    // Nothing was published, and the connection was taken out of the stray transaction.
    expect(published).toEqual([]);
    expect(db.inTransaction).toBe(false);
    // The record did commit: a retry with the same id finds it, and the writer goes on.
    await expect(writer.append(first)).resolves.toMatchObject({ appended: false, record: { idempotencyId: first.idempotencyId } });
    await expect(writer.append(draft())).resolves.toMatchObject({ appended: true });
  });

  it('logs a closed DataSource as an outage once per failed batch, not once per caller', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    await dataSource.destroy();
    const answers = await Promise.allSettled([writer.append(draft()), writer.append(draft()), writer.append(draft())]);
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(logged.mock.calls).toEqual([['journal unavailable: the database connection is closed']]);
    expect(await new JournalHealth(writer, dataSource).isHealthy()).toBe(false);
  });
});
