import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournalDurability, type DataSync } from './journal-durability.js';

// A sync the test completes or fails by hand, recording what it was asked.
function manualSync(): { sync: DataSync; calls: Array<{ directory: boolean }>; finish: (error?: Error) => void } {
  const calls: Array<{ directory: boolean }> = [];
  const pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  return {
    calls,
    sync: (_path, directory) => {
      calls.push({ directory });
      return new Promise((resolve, reject) => pending.push({ resolve, reject }));
    },
    finish: (error) => {
      const next = pending.shift()!;
      if (error) next.reject(error);
      else next.resolve();
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('JournalDurability', () => {
  it('lets a snapshot be taken at once while every commit is synced', async () => {
    const durability = new JournalDurability('/x-wal', manualSync().sync);
    const order: string[] = [];
    await durability.whenDurable(() => order.push('snapshot'));
    expect(order).toEqual(['snapshot']);
  });

  it('holds a snapshot behind a commit until its sync returns, and takes it before the writer goes on', async () => {
    const manual = manualSync();
    const durability = new JournalDurability('/x-wal', manual.sync);
    const order: string[] = [];
    durability.committing();
    const syncing = durability.sync().then(() => order.push('writer goes on'));
    const reading = durability.whenDurable(() => order.push('snapshot'));
    await tick();
    expect(order).toEqual([]);
    manual.finish();
    await Promise.all([syncing, reading]);
    expect(order).toEqual(['snapshot', 'writer goes on']);
  });

  it('waits for the sync that covers the last commit, not an earlier one', async () => {
    const manual = manualSync();
    const durability = new JournalDurability('/x-wal', manual.sync);
    let taken = false;
    durability.committing();
    const first = durability.sync();
    durability.committing(); // sent while the first sync was on the way: not covered by it
    const reading = durability.whenDurable(() => (taken = true));
    manual.finish();
    await first;
    expect(taken).toBe(false);
    const second = durability.sync();
    manual.finish();
    await Promise.all([second, reading]);
    expect(taken).toBe(true);
  });

  it('syncs the directory with the first sync only', async () => {
    const manual = manualSync();
    const durability = new JournalDurability('/x-wal', manual.sync);
    for (let i = 0; i < 3; i++) {
      durability.committing();
      const syncing = durability.sync();
      manual.finish();
      await syncing;
    }
    expect(manual.calls).toEqual([{ directory: true }, { directory: false }, { directory: false }]);
  });

  it('after a failed sync fails the waiting snapshots, every later sync and snapshot, and check()', async () => {
    const manual = manualSync();
    const durability = new JournalDurability('/x-wal', manual.sync);
    durability.committing();
    const syncing = durability.sync();
    const reading = durability.whenDurable(() => undefined);
    manual.finish(new Error('EIO'));
    await expect(syncing).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
    await expect(reading).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
    await expect(durability.sync()).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
    await expect(durability.whenDurable(() => undefined)).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
    expect(() => durability.check()).toThrow(/fdatasync of \/x-wal failed \(EIO\)/);
    expect(manual.calls).toHaveLength(1);
  });

  describe('its own fdatasync, on a real file', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pn-durability-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('syncs a WAL that exists, and the reads it held go on', async () => {
      const wal = join(dir, 'journal.db-wal');
      writeFileSync(wal, 'frames');
      const durability = new JournalDurability(wal);
      durability.committing();
      await durability.sync();
      let taken = false;
      await durability.whenDurable(() => (taken = true));
      expect(taken).toBe(true);
      await durability.close();
    });

    // Issue 45: a WAL path that is not the file SQLite writes (a symbolic link's `<link>-wal`)
    // found nothing and was taken as synced, so every write was answered without a sync.
    it('fails the write when the sync finds no file (ENOENT), and everything after it', async () => {
      const wal = join(dir, 'missing.db-wal');
      const durability = new JournalDurability(wal);
      durability.committing();
      const reading = durability.whenDurable(() => undefined);
      await expect(durability.sync()).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC', message: expect.stringContaining('ENOENT') });
      await expect(reading).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
      // The file appearing later does not make the store usable again: only a restart does.
      writeFileSync(wal, 'frames');
      await expect(durability.sync()).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
      expect(() => durability.check()).toThrow(/fdatasync of .*missing\.db-wal failed \(.*ENOENT/);
      await durability.close();
    });
  });
});
