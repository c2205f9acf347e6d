import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { JournalUnavailableError } from '../../errors/journal-unavailable.error.js';
import type { JournalDraft } from './journal-draft.interface.js';
import { dataSourceOptionsFromUrl } from '../connection/data-source-options.js';
import { JournalWriter, type JournalCommit } from './journal-writer.service.js';
import { SessionLeases } from '../leases/session-leases.service.js';
import { JournalHealth } from '../health/journal-health.service.js';
import { latch } from '../../../../../test/support/latch.js';
import { notificationDraft } from '../../../../../test/support/notification-fixture.js';
import { managerOf } from '../transaction/store-transaction.js';

const SESSION = randomUUID();
const LOOP = randomUUID();

const draft = (idempotencyId?: string): JournalDraft => notificationDraft({ sessionId: SESSION, loopId: LOOP, idempotencyId });

const settle = <T>(promise: Promise<T>) =>
  promise.then(
    () => 'ok' as const,
    (error: unknown) => error,
  );

// docs/operations.md (Durability in operation, bounded waits): every journal call has a deadline
// (PN_JOURNAL_TIMEOUT_MS, 5 s by default), and at most 10,000 writes wait at once; more are
// refused at once.
describe('JournalWriter limits (real in-memory SQLite)', () => {
  let dataSource: DataSource;

  beforeEach(async () => {
    dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
  });
  afterEach(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
  });

  it('takes 10,000 waiting writes and refuses the next one at once', async () => {
    // A deadline no loaded machine reaches: this is about the bound, and the last of 10,000
    // queued writes must not be answered at its deadline instead.
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs: 120_000 });
    const answers = await Promise.all(Array.from({ length: 10_001 }, () => settle(writer.append(draft()))));
    expect(answers.slice(0, 10_000).every((answer) => answer === 'ok')).toBe(true);
    expect(answers[10_000]).toBeInstanceOf(JournalUnavailableError);
    expect((answers[10_000] as Error).message).toBe('journal unavailable: 10000 writes are already waiting for the database');
    expect(Number(((await dataSource.query('SELECT COUNT(*) AS n FROM pn_journal')) as Array<{ n: number }>)[0]!.n)).toBe(10_000);
  });

  it('gives the places of writes answered at their deadline back to new writes while the database is still stalled', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs: 300 });
    const [gate, release] = latch();
    const [inTransaction, entered] = latch();
    const stalled = settle(
      writer.write(async () => {
        entered();
        await gate;
      }),
    );
    await inTransaction;
    // A full queue behind the stalled transaction, every write answered at its deadline.
    const expired = await Promise.all(Array.from({ length: 10_000 }, () => settle(writer.append(draft()))));
    expect(
      expired.every((answer) => answer instanceof JournalUnavailableError && /did not answer within 300 ms/.test(answer.message)),
    ).toBe(true);
    // Still stalled: 10,000 new writes wait again, none is refused for a full queue.
    const waiting = Array.from({ length: 10_000 }, () => settle(writer.append(draft())));
    release();
    const answers = await Promise.all(waiting);
    expect(answers.filter((answer) => answer instanceof Error && /already waiting/.test(answer.message))).toEqual([]);
    await stalled;
  });

  it('answers a call the database does not finish within the deadline, and a call queued behind it too', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs: 200 });
    let release!: () => void;
    const stalled = writer.write(() => new Promise<void>((resolve) => (release = resolve)));
    const behind = writer.append(draft());
    const [first, second] = await Promise.all([settle(stalled), settle(behind)]);
    for (const answer of [first, second]) {
      expect(answer).toBeInstanceOf(JournalUnavailableError);
      expect((answer as Error).message).toMatch(/200 ms/);
    }
    // The stalled work ends later: its outcome reaches nobody, and the writer goes on.
    release();
    await expect(writer.append(draft())).resolves.toMatchObject({ appended: true });
  });

  it('reports each commit with its size and its duration in seconds (pn_journal_commit_seconds)', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    const commits: JournalCommit[] = [];
    writer.commits$.subscribe((commit) => commits.push(commit));
    const started = performance.now();
    await Promise.all([writer.append(draft()), writer.append(draft())]);
    const elapsedSeconds = (performance.now() - started) / 1000;
    expect(commits).toEqual([{ size: 2, seconds: expect.any(Number) }]);
    expect(commits[0]!.seconds).toBeGreaterThanOrEqual(0);
    expect(commits[0]!.seconds).toBeLessThanOrEqual(elapsedSeconds);
  });

  it('accepts the default deadline and 1 ms, and refuses one that is not a positive whole number of ms', () => {
    expect(() => new JournalWriter(dataSource, new SessionLeases(dataSource), {})).not.toThrow();
    expect(() => new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs: 1 })).not.toThrow();
    for (const journalTimeoutMs of [0, -5, 1.5, Number.NaN]) {
      expect(() => new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs })).toThrow(
        `journalTimeoutMs must be a positive integer, got ${String(journalTimeoutMs)}`,
      );
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
    await expect(new JournalHealth(writer, dataSource).isHealthy()).resolves.toBe(true);
  });

  it('puts work queued while a transaction runs into the next transaction, never a concurrent one', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    const sizes: number[] = [];
    writer.commits$.subscribe((commit) => sizes.push(commit.size));
    const [gate, release] = latch();
    const [inTransaction, entered] = latch();
    const first = draft();
    const held = writer.write(async (_store, journal) => {
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

  it('tells a job answered inside its transaction that it may have committed, and one answered in the queue that nothing was written', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs: 200 });
    const [gate, release] = latch();
    const [inTransaction, entered] = latch();
    const running = draft();
    // The append is under way (its row inserted) when its transaction stalls past the deadline.
    const stalled = settle(
      writer.write(async (_store, journal) => {
        await journal.append(running);
        entered();
        await gate;
      }),
    );
    await inTransaction;
    const waiting = draft();
    const queued = settle(writer.append(waiting));
    const [first, second] = (await Promise.all([stalled, queued])) as JournalUnavailableError[];
    expect([first, second].map((error) => [error.constructor, error.mayHaveCommitted])).toEqual([
      [JournalUnavailableError, true],
      [JournalUnavailableError, false],
    ]);
    release();
    // What happened: the one told "may have" committed after its answer; the other never ran.
    await writer.append(draft());
    const ids = ((await dataSource.query('SELECT idempotency_id FROM pn_journal')) as Array<{ idempotency_id: string }>).map(
      (row) => row.idempotency_id,
    );
    expect(ids).toContain(running.idempotencyId);
    expect(ids).not.toContain(waiting.idempotencyId);
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
    const healthy = new JournalHealth(writer, dataSource).isHealthy();
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
    await expect(writer.write((store) => managerOf(store).query('SELECT no_such_column FROM pn_journal'))).rejects.toBeInstanceOf(
      JournalUnavailableError,
    );
    expect(logged).not.toHaveBeenCalled();
  });
});
