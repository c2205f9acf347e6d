import Database from 'better-sqlite3';
import { LoopHostProcess } from './loop-host-process.js';
import { tempDir } from './temp-dir.js';

/**
 * Loop host processes on one SQLite file of the test's own (registers the test's beforeEach and
 * afterEach): a fresh file per test, and every host still running killed after it.
 */
export function loopHostsOnOneFile() {
  let dir: ReturnType<typeof tempDir>;
  let hosts: LoopHostProcess[] = [];

  beforeEach(() => {
    dir = tempDir();
    hosts = [];
  });

  afterEach(async () => {
    for (const host of hosts) await host.kill();
    dir.remove();
  });

  return {
    /** A host on the file, with `env` added to its environment. */
    async start(env: Record<string, string> = {}): Promise<LoopHostProcess> {
      const host = await LoopHostProcess.start(dir.file('journal.db'), env);
      hosts.push(host);
      return host;
    },
    /** Closes a host the test is done with (it exits), which then needs no killing. */
    async close(host: LoopHostProcess): Promise<void> {
      await host.close();
      hosts = hosts.filter((other) => other !== host);
    },
    /** The rows `sql` reads from the file, on a read-only connection of the test's own. */
    rows<T>(sql: string): T[] {
      const db = new Database(dir.file('journal.db'), { readonly: true });
      try {
        return db.prepare(sql).all() as T[];
      } finally {
        db.close();
      }
    },
  };
}
