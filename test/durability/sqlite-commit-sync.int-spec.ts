import Database from 'better-sqlite3';
import { mkdirSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { JournalUnavailableError } from 'nestjs-process-notifications';
import { JournalWriter } from '../../libs/process-notifications/src/persistence/journal/journal-writer.service.js';
import type { DataSync, JournalDurability } from '../../libs/process-notifications/src/persistence/durability/journal-durability.js';
import {
  WRITER_AUTOCHECKPOINT_PAGES,
  type WalCheckpointer,
  type WalCheckpointResult,
} from '../../libs/process-notifications/src/persistence/durability/wal-checkpointer.js';
import { createTestApp, notification, openSessionWithLoop, useSessionWithLoop } from '../support/test-app.js';
import { tempDir } from './support/temp-dir.js';

// On a SQLite file the writer syncs the WAL itself after COMMIT, off the event loop's thread
// (JournalDurability), and a thread of its own checkpoints (WalCheckpointer). The fault is
// injected at the sync: the fdatasync the writer calls is replaced by one that stalls or fails,
// while the records really are committed in the file (a second connection reads them). What
// callers, readers and subscribers were given is checked against that.
describe('a SQLite file: commits synced by the writer, off the event loop', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  const t = useSessionWithLoop(() => ({ databaseUrl: `sqlite:${dir.file('journal.db')}`, loopCapacity: 100_000 }));
  afterEach(() => dir.remove());

  const writer = () => t.moduleRef.get(JournalWriter, { strict: false });
  const durability = () => (writer() as unknown as { durability: JournalDurability }).durability;
  const injectSync = (sync: DataSync) => ((durability() as unknown as { datasync: DataSync }).datasync = sync);
  // What the file holds, read by a connection of its own (committed, synced or not).
  const inFile = (): string[] => {
    const reader = new Database(dir.file('journal.db'), { readonly: true });
    try {
      const rows = reader.prepare("SELECT idempotency_id FROM pn_journal WHERE kind = 'process_notification'").all() as Array<{
        idempotency_id: string;
      }>;
      return rows.map((row) => row.idempotency_id);
    } finally {
      reader.close();
    }
  };
  const settled = <T>(promise: Promise<T>) => {
    const state: { done: boolean; value?: T; error?: unknown } = { done: false };
    promise.then(
      (value) => Object.assign(state, { done: true, value }),
      (error: unknown) => Object.assign(state, { done: true, error }),
    );
    return state;
  };
  const idsOf = (records: Array<{ idempotencyId: string | null }>) => records.map((record) => record.idempotencyId);

  it('answers, publishes and lets a read see a commit only once its sync has returned', async () => {
    const { service, sessionId, loopId } = t;
    const before = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, before);

    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    const real = (durability() as unknown as { datasync: DataSync }).datasync;
    let syncs = 0;
    injectSync(async (path, directory) => {
      syncs++;
      await stalled;
      await real(path, directory);
    });
    const published: string[] = [];
    const subscription = writer().records$.subscribe((record) => published.push(String(record.idempotencyId)));
    try {
      const n = notification(sessionId, loopId);
      const answer = settled(service.notifyProcessCompletion(sessionId, n));
      // Wait until the record is committed in the file and its sync is the one stalled.
      for (let i = 0; i < 200 && !inFile().includes(n.command_id as string); i++) await new Promise((r) => setTimeout(r, 10));
      expect(inFile()).toContain(n.command_id);
      expect(syncs).toBe(1);
      const journal = settled(service.readJournal(sessionId));
      const loopEvents = settled(service.readLoopEvents(sessionId, loopId, 0));
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Committed, not synced: the caller has no answer, no subscriber heard of it, and the reads
      // started meanwhile wait rather than answer from it.
      expect(answer.done).toBe(false);
      expect(published).toEqual([]);
      expect(journal.done).toBe(false);
      expect(loopEvents.done).toBe(false);

      release();
      await service.readJournal(sessionId);
      expect(answer.error).toBeUndefined();
      expect(answer.done).toBe(true);
      expect(published).toEqual([n.command_id]);
      expect(idsOf(journal.value!)).toEqual([before.command_id, n.command_id]);
      expect(loopEvents.value!.events.map((event) => (event.kind === 'consumed' ? event.commandId : event.notification.commandId))).toEqual(
        [before.command_id, n.command_id],
      );
    } finally {
      release();
      subscription.unsubscribe();
    }
  });

  it('fails the write whose sync failed and every write and read after it, and a restart keeps what the disk holds', async () => {
    const { service, sessionId, loopId } = t;
    const kept = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, kept);
    injectSync(() => Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));

    const inDoubt = notification(sessionId, loopId);
    await expect(service.notifyProcessCompletion(sessionId, inDoubt)).rejects.toBeInstanceOf(JournalUnavailableError);
    // Committed before its sync failed: in the file, in doubt, answered as not journaled.
    expect(inFile()).toContain(inDoubt.command_id);
    const after = notification(sessionId, loopId);
    await expect(service.notifyProcessCompletion(sessionId, after)).rejects.toBeInstanceOf(JournalUnavailableError);
    await expect(service.readJournal(sessionId)).rejects.toBeInstanceOf(JournalUnavailableError);
    expect(inFile()).not.toContain(after.command_id);

    await t.restart({ databaseUrl: `sqlite:${dir.file('journal.db')}`, loopCapacity: 100_000 });
    // The restart recovered what the disk holds; the caller's retry of the one in doubt writes nothing.
    const journal = await t.service.readJournal(sessionId);
    expect(idsOf(journal)).toEqual([kept.command_id, inDoubt.command_id]);
    await t.service.notifyProcessCompletion(sessionId, inDoubt);
    expect(idsOf(await t.service.readJournal(sessionId))).toEqual([kept.command_id, inDoubt.command_id]);
  });

  it('checkpoints the WAL in its own thread while writes go on, and the file stays bounded and whole', async () => {
    const { service, sessionId, loopId } = t;
    const checkpointer = (writer() as unknown as { checkpointer: WalCheckpointer }).checkpointer;
    const checkpoints: WalCheckpointResult[] = [];
    checkpointer.onCheckpoint((result) => checkpoints.push(result));
    const sent: string[] = [];
    // About 40 MB of WAL frames if nothing were checkpointed (random ids: a page per index entry).
    for (let round = 0; round < 40; round++) {
      await Promise.all(
        Array.from({ length: 250 }, async () => {
          const n = notification(sessionId, loopId);
          sent.push(n.command_id as string);
          await service.notifyProcessCompletion(sessionId, n);
        }),
      );
    }
    for (let i = 0; i < 100 && !checkpoints.some((c) => c.checkpointed === c.log && c.log > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(checkpoints.length).toBeGreaterThan(1);
    expect(checkpoints.some((c) => c.checkpointed === c.log && c.log > 0)).toBe(true);
    // Below the writer's own bound (10,000 pages, 40 MB), where it would checkpoint inline.
    expect(statSync(dir.file('journal.db-wal')).size).toBeLessThan(WRITER_AUTOCHECKPOINT_PAGES * 4096);

    await t.restart({ databaseUrl: `sqlite:${dir.file('journal.db')}`, loopCapacity: 100_000 });
    expect(new Set(inFile())).toEqual(new Set(sent));
  });
});

// Issue 45: the writer synced `<path as written>-wal`, while SQLite resolves the path itself (the
// unix VFS follows symbolic links to the real file and names the WAL `<real file>-wal`); a sync
// that found no file passed, so through a symbolic link no answer was ever covered by a sync.
// Each layout names real/journal.db another way; the checks are on the file SQLite really writes.
describe('a SQLite file named through links, `..` or a relative path: the sync covers the WAL SQLite writes', () => {
  let dir: ReturnType<typeof tempDir>;
  let cwd: string;
  beforeEach(() => {
    dir = tempDir();
    cwd = process.cwd();
    mkdirSync(dir.file('real'));
  });
  afterEach(() => {
    process.chdir(cwd);
    dir.remove();
  });

  const layouts: Array<[string, (root: string) => { path: string; cwd?: string }]> = [
    [
      'a symbolic link to the file',
      (root) => {
        symlinkSync(join(root, 'real/journal.db'), join(root, 'link.db'));
        return { path: join(root, 'link.db') };
      },
    ],
    [
      '`..` segments after a linked directory (lexically another file)',
      (root) => {
        mkdirSync(join(root, 'real/a/b'), { recursive: true });
        symlinkSync(join(root, 'real/a/b'), join(root, 'linked'));
        // Not path.join, which would take the `..` lexically.
        return { path: `${root}/linked/../../journal.db` };
      },
    ],
    ['a relative path, the working directory changed after the start', (root) => ({ path: 'journal.db', cwd: join(root, 'real') })],
  ];

  it.each(layouts)('%s', async (_layout, layout) => {
    const { path, cwd: startIn } = layout(dir.path);
    if (startIn) process.chdir(startIn);
    const app = await createTestApp({ databaseUrl: `sqlite:${path}` });
    try {
      // From now on a relative path would name another (missing) file.
      process.chdir(dir.path);
      const real = join(realpathSync(dir.file('real')), 'journal.db');
      const { sessionId, loopId } = await openSessionWithLoop(app.service);
      const durability = (app.moduleRef.get(JournalWriter, { strict: false }) as unknown as { durability: JournalDurability }).durability;
      const internals = durability as unknown as { datasync: DataSync; wal?: FileHandle };
      // The descriptor the writer fdatasyncs is the WAL SQLite writes, and it is open (not skipped).
      expect(internals.wal).toBeDefined();
      expect((await internals.wal!.stat()).ino).toBe(statSync(`${real}-wal`).ino);

      let release!: () => void;
      const stalled = new Promise<void>((resolve) => (release = resolve));
      const real_ = internals.datasync;
      const paths: string[] = [];
      internals.datasync = async (walPath, directory) => {
        paths.push(walPath);
        await stalled;
        await real_(walPath, directory);
      };
      const n = notification(sessionId, loopId);
      let answered = false;
      const answer = app.service.notifyProcessCompletion(sessionId, n).then(() => (answered = true));
      const inFile = (): string[] => {
        const reader = new Database(real, { readonly: true });
        try {
          return (reader.prepare('SELECT idempotency_id FROM pn_journal').all() as Array<{ idempotency_id: string }>).map(
            (row) => row.idempotency_id,
          );
        } finally {
          reader.close();
        }
      };
      for (let i = 0; i < 200 && !inFile().includes(n.command_id as string); i++) await new Promise((r) => setTimeout(r, 10));
      // Committed in the real file, its sync stalled: no answer yet.
      expect(inFile()).toContain(n.command_id);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered).toBe(false);
      release();
      await answer;
      expect(paths.length).toBeGreaterThan(0);
      expect(new Set(paths)).toEqual(new Set([`${real}-wal`]));
    } finally {
      await app.close();
    }
  });
});
