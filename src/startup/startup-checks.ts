import { dataSourceOptionsFromUrl } from 'nestjs-process-notifications';
import { accessSync, constants, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { redactDatabaseUrl } from '../config/database-url.js';

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();

/**
 * Binds `port` and lets it go again: a port in use (or not ours to bind) is found before any
 * migration runs. Throws one line naming PORT. Port 0 (any free port) is always usable.
 */
export async function checkPortIsFree(port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((done, fail) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'is already in use' : `cannot be bound (${error.code ?? messageOf(error)})`;
      fail(new Error(`PORT ${port} ${reason}`));
    });
    probe.listen(port, () => probe.close(() => done()));
  });
}

// SQLite writes its journal files beside the database: the directory must take new files.
function checkSqliteWritable(path: string): void {
  if (path === ':memory:') return;
  const file = resolve(path);
  const directory = dirname(file);
  for (const target of existsSync(file) ? [directory, file] : [directory]) {
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      throw new Error(
        `${target === file ? 'file' : 'directory'} ${target} is not writable (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`,
      );
    }
  }
}

/**
 * Opens the database of `url` without running migrations and asks it a question, so a URL
 * that cannot be opened or reached ends the start before anything is written to it. Throws one
 * line naming PN_DATABASE_URL (its password hidden) and the reason.
 */
export async function checkDatabaseIsUsable(url: string): Promise<void> {
  const fail = (reason: string): never => {
    throw new Error(`PN_DATABASE_URL "${redactDatabaseUrl(url)}" cannot be used: ${reason}`);
  };
  let dataSource: DataSource | undefined;
  try {
    const options = dataSourceOptionsFromUrl(url);
    if (options.type === 'better-sqlite3') checkSqliteWritable(options.database);
    dataSource = new DataSource({ ...options, migrationsRun: false });
    await dataSource.initialize();
    // Reads the schema, so a file that is not a SQLite database fails here too.
    await dataSource.query(options.type === 'better-sqlite3' ? 'SELECT count(*) FROM sqlite_master' : 'SELECT 1');
  } catch (error) {
    fail(messageOf(error));
  } finally {
    if (dataSource?.isInitialized) await dataSource.destroy();
  }
}
