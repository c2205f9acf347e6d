import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Makes a file's written data durable: `fdatasync(2)` of `path`, and of its directory when `directory`. */
export type DataSync = (path: string, directory: boolean) => Promise<void>;

/**
 * The durability of a SQLite file's commits, made off the event loop's thread (issue 37).
 *
 * With `synchronous = FULL` every COMMIT fsyncs the WAL inside better-sqlite3's call, on the main
 * thread: 3 ms per commit on this project's machines, a quarter of a busy server's time, during
 * which no request is read. The writer's connection runs `synchronous = NORMAL` instead (SQLite
 * then writes the WAL at COMMIT and syncs it only at checkpoints, staying consistent after a crash)
 * and the writer fdatasyncs the WAL itself, in libuv's thread pool, after each COMMIT and before
 * anyone is answered or anything is published: every acknowledgement is still on disk.
 *
 * What a commit not yet synced must not reach is everyone else: between a COMMIT and its sync the
 * records are readable, and a read answered from them (a loop given a notification, a journal
 * page) could be lost with them at a power cut. So reads take their snapshot only at a moment
 * when every commit is synced ({@link whenDurable}), and the writer never commits again before its
 * last commit's sync returned, so such a moment comes at each sync.
 *
 * A failed sync leaves the file's state unknown (after an fdatasync error Linux may have dropped
 * the pages it could not write): from then on every write and read fails, until a restart
 * recovers whatever the disk really holds. Commits nobody was answered for are then in doubt,
 * exactly as after a failed COMMIT: a retry de-duplicates.
 */
export class JournalDurability {
  // COMMITs sent, and how many of them a completed sync covers.
  private committed = 0;
  private synced = 0;
  private failure?: Error;
  private directorySynced = false;
  private readonly waiting: Array<{ begin: () => void; resolve: () => void; reject: (error: Error) => void }> = [];
  private readonly syncListeners: Array<() => void> = [];
  // The WAL, open from the first sync on: it lives as long as the writer's connection.
  private wal?: FileHandle;
  private readonly datasync: DataSync;

  /**
   * @param walPath the WAL SQLite really writes, as SQLite names it (the dialect's `walOf`), which
   *   must exist from the first sync on: a sync that finds no file fails
   * @param datasync how the WAL is synced (tests inject faults here); by default its fdatasync(2)
   */
  constructor(
    private readonly walPath: string,
    datasync?: DataSync,
  ) {
    this.datasync = datasync ?? ((path, directory) => this.fdatasync(path, directory));
  }

  /** Closes the WAL's handle (the writer's connection is closing). */
  async close(): Promise<void> {
    const wal = this.wal;
    this.wal = undefined;
    await wal?.close();
  }

  private async fdatasync(path: string, directory: boolean): Promise<void> {
    // No WAL file fails like any failed sync (issue 45): while the writer's connection is open
    // SQLite keeps its WAL, so a missing one means the path is not the file SQLite writes, and
    // taking that as success answered writes no sync covered.
    this.wal ??= await open(path, 'r');
    await this.wal.datasync();
    if (!directory) return;
    // Once: the WAL's entry in its directory, created when the database was first opened.
    const parent = await open(dirname(path), 'r');
    try {
      await parent.sync();
    } finally {
      await parent.close();
    }
  }

  /** Throws when an earlier sync failed: the store is unusable until a restart. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /** Called right before a COMMIT is sent: until a sync covers it, no read takes a snapshot. */
  committing(): void {
    this.committed++;
  }

  /**
   * Makes every COMMIT sent so far durable (the WAL's fdatasync, and its directory's the first
   * time). Resolves once it is; rejects, for good, when the sync fails.
   */
  async sync(): Promise<void> {
    this.check();
    const target = this.committed;
    try {
      await this.datasync(this.walPath, !this.directorySynced);
    } catch (error) {
      this.fail(error);
      throw this.failure;
    }
    this.directorySynced = true;
    if (target > this.synced) this.synced = target;
    for (const listener of this.syncListeners) listener();
    if (this.synced < this.committed) return;
    // Synchronously, before the writer's continuation (a later microtask) can send a COMMIT.
    for (const waiter of this.waiting.splice(0)) {
      try {
        waiter.begin();
        waiter.resolve();
      } catch (error) {
        waiter.reject(error as Error);
      }
    }
  }

  /** Calls `listener` after each sync that succeeded (the WAL grew: time to checkpoint). */
  onSynced(listener: () => void): void {
    this.syncListeners.push(listener);
  }

  /**
   * Runs `begin` (which must take a read snapshot synchronously) at a moment when every commit
   * sent is durable: now if none is waiting for its sync, else as that sync completes. Rejects
   * when the store failed.
   */
  whenDurable(begin: () => void): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.synced === this.committed) {
      try {
        begin();
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return new Promise((resolve, reject) => this.waiting.push({ begin, resolve, reject }));
  }

  private fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    // SQLite's own code for a failed sync, so the writer treats it as the store failing.
    this.failure = Object.assign(
      new Error(`fdatasync of ${this.walPath} failed (${message}): the journal is unusable until a restart`, { cause: error }),
      { code: 'SQLITE_IOERR_FSYNC' },
    );
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }
}
