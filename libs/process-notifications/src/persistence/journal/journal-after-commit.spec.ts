import { DataSource } from 'typeorm';
import { JournalUnavailableError } from '../../errors/journal-unavailable.error.js';
import { SessionLeases } from '../leases/session-leases.service.js';
import { dataSourceOptionsFromUrl } from '../connection/data-source-options.js';
import { JournalWriter } from './journal-writer.service.js';
import { latch } from '../../../../../test/support/latch.js';
import { managerOf } from '../transaction/store-transaction.js';

// What a rotation or a close changes in memory follows its commit (JournalTransaction.afterCommit):
// at the commit, even for a caller that was answered at its deadline meanwhile (the token must
// not stay valid here while the database has replaced it), and never for a transaction that failed.
describe('JournalWriter afterCommit (real in-memory SQLite)', () => {
  let dataSource: DataSource;
  beforeEach(async () => {
    dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
  });
  afterEach(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
  });

  it('runs the action once the transaction committed, before the next one runs', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), {});
    const seen: string[] = [];
    const first = writer.write(async (_store, journal) => {
      journal.afterCommit(() => seen.push('committed'));
      seen.push('ran');
    });
    const next = writer.write(async () => {
      seen.push('next');
    });
    await Promise.all([first, next]);
    // Queued in one tick, they share a transaction: the action comes after both ran.
    expect(seen).toEqual(['ran', 'next', 'committed']);

    seen.length = 0;
    await writer.write(async (_store, journal) => journal.afterCommit(() => seen.push('committed')));
    await writer.write(async () => {
      seen.push('later');
    });
    expect(seen).toEqual(['committed', 'later']);
  });

  it('runs it for a caller answered at its deadline while the transaction went on to commit', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), { journalTimeoutMs: 200 });
    const [gate, release] = latch();
    let committed = false;
    const slow = writer
      .write(async (_store, journal) => {
        journal.afterCommit(() => (committed = true));
        await gate;
      })
      .catch((error: unknown) => error);
    expect(await slow).toBeInstanceOf(JournalUnavailableError);
    expect(committed).toBe(false);
    release();
    // The next write runs after that transaction's end.
    await writer.write(async () => undefined);
    expect(committed).toBe(true);
  });

  it('never runs it when the transaction fails', async () => {
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource), {});
    let committed = false;
    const failed = await writer
      .write(async (store, journal) => {
        journal.afterCommit(() => (committed = true));
        await managerOf(store).query('SELECT * FROM no_such_table');
      })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    await writer.write(async () => undefined);
    expect(committed).toBe(false);
  });
});
