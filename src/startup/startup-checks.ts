import { DEFAULT_DATABASE_URL, probeStore } from 'nestjs-process-notifications';
import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { redactDatabaseUrl } from '../config/database-url.js';

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();

/** How long each start-up check may take before the start is refused. */
export const STARTUP_CHECK_DEADLINE_MS = 4_000;

/**
 * `work` within `ms`, or a rejection naming `what`: a file system or network that does not answer
 * ends the start instead of holding it. File system calls run on libuv's threads, so the timer
 * fires even while one of them hangs.
 */
export async function withDeadline<T>(what: string, work: Promise<T>, ms = STARTUP_CHECK_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Binds `port` and lets it go again: a port in use (or not ours to bind) is found before any
 * migration runs. Throws one line naming PORT. Port 0 (any free port) is always usable.
 */
export async function checkPortIsFree(port: number): Promise<void> {
  if (port === 0) return;
  const probing = new Promise<void>((done, fail) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'is already in use' : `cannot be bound (${error.code ?? messageOf(error)})`;
      fail(new Error(`PORT ${port} ${reason}`));
    });
    probe.listen(port, () => probe.close(() => done()));
  });
  await withDeadline(`binding PORT ${port}`, probing);
}

// The directory of the default database (`./data`) is created when missing, and only that one:
// a missing directory in an explicit URL is most likely a typo, refused rather than created.
// SQLite writes its journal files beside the database: the directory must take new files.
async function checkSqliteDirectory(url: string, path: string): Promise<void> {
  if (path === ':memory:') return;
  const file = resolve(path);
  const directory = dirname(file);
  if (url === DEFAULT_DATABASE_URL)
    await mkdir(directory).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw new Error(`directory ${directory} cannot be created (${error.code ?? messageOf(error)})`);
    });
  const isDirectory = await stat(directory).then(
    (found) => found.isDirectory(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new Error(`directory ${directory} does not exist (create it, or fix the path)`);
      throw new Error(`directory ${directory} cannot be read (${error.code ?? messageOf(error)})`);
    },
  );
  if (!isDirectory) throw new Error(`${directory} is not a directory`);
  const fileExists = await stat(file).then(
    () => true,
    () => false,
  );
  for (const target of fileExists ? [directory, file] : [directory]) {
    await access(target, constants.W_OK).catch((error: NodeJS.ErrnoException) => {
      throw new Error(`${target === file ? 'file' : 'directory'} ${target} is not writable (${error.code ?? messageOf(error)})`);
    });
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
  try {
    // Before the library's options: they create a missing directory, which is only right for the default.
    if (url.startsWith('sqlite:'))
      await withDeadline('the database directory check', checkSqliteDirectory(url, url.slice('sqlite:'.length)));
    await probeStore(url, (what, work) => withDeadline(what, work));
  } catch (error) {
    fail(messageOf(error));
  }
}
