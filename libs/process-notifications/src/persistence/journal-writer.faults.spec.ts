import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { DataSource, type AfterQueryEvent, type EntitySubscriberInterface } from 'typeorm';
import { JournalUnavailableError } from '../errors/journal-unavailable.error.js';
import type { JournalDraft } from './journal-draft.interface.js';
import { dataSourceOptionsFromUrl } from './data-source-options.js';
import type { JournalRecordEntity } from './journal-record.entity.js';
import { JournalWriter } from './journal-writer.service.js';
import { SessionLeases } from '../cluster/session-leases.service.js';
import { latch } from '../../../../test/support/latch.js';
import { notificationDraft } from '../../../../test/support/notification-fixture.js';

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
  let published: JournalRecordEntity[];

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
    expect(await writer.isHealthy()).toBe(false);
  });
});

// While SQLite fails (a full disk), the health probe is a real append of a largest
// notification, taken back in its transaction: a disk with room for a small record only stays
// unhealthy. What the probe inserts is recorded by a temporary trigger on the real database.
describe('JournalWriter health probe while SQLite is full', () => {
  it('appends a largest notification at the right edge of the journal, and leaves no row and no gap behind', async () => {
    const dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
    try {
      const db = (dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
      const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const before = await writer.append(draft());
      // Full: the next record needs a page the database may not take.
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
      const big = { ...draft(), payload: { blob: 'x'.repeat(20_000) } };
      await expect(writer.append(big)).rejects.toBeInstanceOf(JournalUnavailableError);
      db.pragma('max_page_count = 1073741823');

      // SQLite itself records what the probe inserts, whichever way the statement was sent.
      db.exec(`CREATE TEMP TABLE seen AS SELECT * FROM main.pn_journal WHERE 0;
        CREATE TEMP TRIGGER watch AFTER INSERT ON main.pn_journal BEGIN INSERT INTO seen SELECT * FROM main.pn_journal WHERE sequence = NEW.sequence; END;`);
      await expect(writer.isHealthy()).resolves.toBe(true);
      const id = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
      const inserts = db.prepare('SELECT * FROM temp.seen').all() as Array<Record<string, unknown>>;
      expect(inserts).toHaveLength(1);
      const {
        session_id: sessionId,
        loop_id: loopId,
        kind,
        idempotency_id: idempotencyId,
        payload,
        cause_command_id: causeCommandId,
      } = inserts[0]!;
      expect({ sessionId, loopId, kind, idempotencyId, causeCommandId }).toEqual({
        sessionId: id,
        loopId: id,
        kind: 'process_notification',
        idempotencyId: id,
        causeCommandId: id,
      });
      expect(JSON.parse(payload as string)).toEqual({
        command_id: id,
        session_id: id,
        loop_id: id,
        process_handle: 'p'.repeat(128),
        state: 'exited',
        reason: 'exited',
      });
      // Taken back: no row, and the next record follows the last one without a gap.
      expect(await dataSource.query('SELECT COUNT(*) AS n FROM pn_journal WHERE session_id = ?', [id])).toEqual([{ n: 0 }]);
      const after = await writer.append(draft());
      expect(after.record.sequence).toBe(before.record.sequence + 1);
      jest.restoreAllMocks();
    } finally {
      await dataSource.destroy();
    }
  });
});

// The queue: one transaction at a time, and work that was answered (expired) never runs again.
describe('JournalWriter queue (real in-memory SQLite)', () => {
  let dataSource: DataSource;

  beforeEach(async () => {
    dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    if (dataSource.isInitialized) await dataSource.destroy();
  });

  it('answers healthy with a probe that really runs on the connection', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    await expect(writer.isHealthy()).resolves.toBe(true);
  });

  it('puts work queued while a transaction runs into the next transaction, never a concurrent one', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    const sizes: number[] = [];
    writer.commits$.subscribe((commit) => sizes.push(commit.size));
    const [gate, release] = latch();
    const [inTransaction, entered] = latch();
    const first = draft();
    const held = writer.write(async (_manager, journal) => {
      await journal.append(first);
      entered();
      await gate;
    });
    await inTransaction;
    const later = [writer.append(draft()), writer.append(draft())];
    // Queued in later ticks while the first transaction is still open.
    await new Promise((resolve) => setImmediate(resolve));
    const third = writer.append(draft());
    release();
    await held;
    await expect(Promise.all([...later, third])).resolves.toEqual([
      expect.objectContaining({ appended: true }),
      expect.objectContaining({ appended: true }),
      expect.objectContaining({ appended: true }),
    ]);
    expect(sizes).toEqual([1, 3]);
    expect(await dataSource.query('SELECT COUNT(*) AS n FROM pn_journal')).toEqual([{ n: 4 }]);
  });

  it('never runs again work that was answered at its deadline, even when its batch is retried job by job', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs: 200 });
    let runs = 0;
    const [gate, release] = latch();
    const late = writer.write(async () => {
      runs += 1;
      await gate;
      // A statement failure of its own: the batch is then retried one job at a time.
      throw new Error('late failure');
    });
    await expect(late).rejects.toThrow(/did not answer within 200 ms/);
    release();
    // Queued behind the failed batch and its retries.
    await expect(writer.append(draft())).resolves.toMatchObject({ appended: true });
    expect(runs).toBe(1);
  });

  it('never runs work answered at its deadline while it was still queued', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs: 200 });
    const [gate, release] = latch();
    const [inTransaction, entered] = latch();
    const stalled = writer.write(async () => {
      entered();
      await gate;
    });
    await inTransaction;
    let runs = 0;
    // First in the queue behind the stalled transaction, answered at its deadline while waiting.
    const queued = writer.write(() => Promise.resolve((runs += 1)));
    await expect(stalled).rejects.toThrow(/did not answer within 200 ms/);
    await expect(queued).rejects.toThrow(/did not answer within 200 ms/);
    release();
    await expect(writer.append(draft())).resolves.toMatchObject({ appended: true });
    expect(runs).toBe(0);
  });

  it('keeps the work queued behind a job whose deadline passed inside its transaction', async () => {
    // The health probe's deadline (2 s) is shorter than the writes' (10 s here).
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs: 10_000 });
    const [gate, release] = latch();
    const [inTransaction, entered] = latch();
    // One batch: the stalled unit of work, then the probe, which waits inside the transaction.
    const stalled = writer.write(async () => {
      entered();
      await gate;
    });
    const healthy = writer.isHealthy();
    await inTransaction;
    const behind = draft();
    const queued = writer.append(behind);
    await expect(healthy).resolves.toBe(false);
    release();
    await stalled;
    await expect(queued).resolves.toMatchObject({ appended: true, record: { idempotencyId: behind.idempotencyId } });
  });

  it("does not log a job's own statement failure as a journal outage", async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    await expect(writer.write((manager) => manager.query('SELECT no_such_column FROM pn_journal'))).rejects.toBeInstanceOf(
      JournalUnavailableError,
    );
    expect(logged).not.toHaveBeenCalled();
  });
});
