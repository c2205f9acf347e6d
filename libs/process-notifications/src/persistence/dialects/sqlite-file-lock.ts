import { readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { SqliteFileInUseError } from './sqlite-file-in-use.error.js';
import type { StoreOwnership } from './store-dialect.js';

// What the lock uses of a SQLite connection.
interface LockConnection {
  pragma(source: string): unknown;
  exec(source: string): unknown;
  close(): unknown;
}
// As many links as SQLite's unix VFS follows for one path (SQLITE_MAX_SYMLINK).
const MAX_LINKS = 100;

/** The SQLite driver's connection class (better-sqlite3's `Database`), handed by the dialect. */
export type SqliteLockDriver = new (path: string, options: { timeout: number }) => LockConnection;

/**
 * This process's ownership of a SQLite file (issue 45): one process owns it, a second is refused.
 *
 * The lock is SQLite's own, on a file of its own beside the database (`<file>.lock`, an empty
 * SQLite database): a connection in `locking_mode = EXCLUSIVE` holds `BEGIN EXCLUSIVE` on it
 * until released. SQLite locks with `fcntl(2)` record locks, which the kernel drops when the
 * process ends however it ends (SIGKILL, a crash): no stale lock is ever left to clean up. Not
 * on the database itself: this process's own connections (the writer's, the read-only one, the
 * checkpoint thread's) share it, and never on the lock file through `node:fs` either: closing any
 * descriptor of a file drops the process's `fcntl` locks on it (SQLite's own connections defer
 * that close). The lock file is never deleted: a process that opened it before a deletion would
 * lock a file nobody else sees.
 *
 * The file is named as SQLite resolves the database's path (absolute, symbolic links followed),
 * so two paths to one file take one lock. A file reached through a hard link or a bind mount of
 * the file itself under another name is not recognised: name it one way.
 */
export class SqliteFileLock implements StoreOwnership {
  private constructor(private connection: LockConnection | undefined) {}

  /** Takes the lock of `database` now, or throws {@link SqliteFileInUseError} at once (no wait). */
  static acquire(database: string, Database: SqliteLockDriver): SqliteFileLock {
    const file = realFileOf(database);
    const lockFile = `${file}.lock`;
    let connection: LockConnection;
    try {
      // timeout 0: a lock another process holds fails at once, never after a wait.
      connection = new Database(lockFile, { timeout: 0 });
    } catch (error) {
      throw new Error(`the lock file ${lockFile} cannot be opened (${(error as Error).message})`, { cause: error });
    }
    try {
      connection.pragma('locking_mode = EXCLUSIVE');
      // It holds no data: no `-journal` file beside it. (Reading the mode fails when it is locked.)
      connection.pragma('journal_mode = MEMORY');
      connection.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      connection.close();
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new SqliteFileInUseError(file, lockFile);
      throw error;
    }
    return new SqliteFileLock(connection);
  }

  /** Gives the file up (closing the connection ends its transaction and its lock); idempotent. */
  release(): void {
    const connection = this.connection;
    this.connection = undefined;
    connection?.close();
  }
}

// The database's path as SQLite's unix VFS resolves it: absolute, links followed, a dangling one
// too (SQLite creates the file it names), so the first start on a new file through a link takes
// the lock every later start takes; a file not yet created is named in its directory's real path.
function realFileOf(database: string): string {
  let file = resolve(database);
  for (let links = 0; links < MAX_LINKS; links++) {
    try {
      return realpathSync(file);
    } catch {
      // Missing, or a dangling link: followed, as SQLite follows it.
    }
    let target: string;
    try {
      target = readlinkSync(file);
    } catch {
      break;
    }
    // Not path.resolve: `..` in a link's target is taken on the file system, not lexically.
    file = isAbsolute(target) ? target : `${dirname(file)}/${target}`;
  }
  try {
    return join(realpathSync(dirname(file)), basename(file));
  } catch {
    // No directory: opening the database fails with its own error.
    return file;
  }
}
