/**
 * Another process owns the SQLite file: a second server, or a `migrate`, while a server runs on it
 * (or the other way round). One process owns a SQLite file: two would each keep their own view
 * of the sessions and loops in memory, and answer with sequences the other never sees. So the
 * module, and so the server, refuses to start, at once and without retrying.
 */
export class SqliteFileInUseError extends Error {
  override readonly name = 'SqliteFileInUseError';
  readonly code = 'sqlite_file_in_use';

  /**
   * @param file the database file, as SQLite resolves it (symbolic links followed)
   * @param lockFile the lock the owner holds (`<file>.lock`)
   */
  constructor(
    readonly file: string,
    readonly lockFile: string,
  ) {
    super(
      `the SQLite file ${file} is in use by another process (it holds ${lockFile}): ` +
        'one process owns a SQLite file; stop the other server or migration first',
    );
  }
}
