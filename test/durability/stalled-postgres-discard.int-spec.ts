import { DataSource } from 'typeorm';
import { dataSourceOptionsFromUrl } from '../../libs/process-notifications/src/persistence/connection/data-source-options.js';
import { discardPostgresConnection } from '../../libs/process-notifications/src/persistence/dialects/store-connection.js';
import { PrivatePostgres } from '../support/private-postgres.js';

// What the test reads of node-postgres' pool and client (public in node-postgres' typings).
interface Pool {
  readonly totalCount: number;
}
interface Client {
  once(event: 'end', listener: () => void): void;
}

// What "at once" means here: far less than the stall, which lasts until the test resumes the server.
const STALL_BOUND_MS = 5_000;

// Dropping a broken connection must not wait for the server: a frozen (SIGSTOPed) PostgreSQL
// never answers node-postgres' goodbye, so a graceful close would hold the socket until it resumes.
describe('discarding a PostgreSQL connection while the server is stalled', () => {
  const unavailable = PrivatePostgres.unavailable();
  if (unavailable) {
    console.warn(`stalled-PostgreSQL discard test skipped: ${unavailable}`);
    it.skip('needs a private PostgreSQL server', () => undefined);
    return;
  }

  let postgres: PrivatePostgres;
  let dataSource: DataSource | undefined;
  // initdb and a server start, slow on a loaded machine.
  beforeAll(async () => (postgres = await PrivatePostgres.start()), 120_000);
  afterAll(async () => {
    postgres?.signalAll('SIGCONT');
    await dataSource?.destroy();
    await postgres?.stop();
  });

  it('closes the socket and frees the pool slot at once, and the next connection works after SIGCONT', async () => {
    dataSource = await new DataSource({ ...dataSourceOptionsFromUrl(postgres.url), poolSize: 1 } as never).initialize();
    const pool = (dataSource.driver as unknown as { master: Pool }).master;
    const pidOf = async (runner: ReturnType<DataSource['createQueryRunner']>) =>
      ((await runner.query('SELECT pg_backend_pid() AS pid')) as [{ pid: number }])[0].pid;

    const runner = dataSource.createQueryRunner('master');
    const client = (await runner.connect()) as Client;
    const stalledPid = await pidOf(runner);
    const socketClosed = new Promise<number>((resolve) => client.once('end', () => resolve(Date.now())));

    postgres.signalAll('SIGSTOP');
    // The server stays stopped until SIGCONT below: a close that waited for its answer would
    // never end before that. The bound only leaves a loaded machine its margin.
    const started = Date.now();
    await discardPostgresConnection(runner);
    expect(Date.now() - started).toBeLessThan(STALL_BOUND_MS);
    expect(runner.isReleased).toBe(true);
    expect(pool.totalCount).toBe(0);
    // Still stalled: the client's socket is closed anyway.
    let timer: NodeJS.Timeout | undefined;
    const stillOpen = new Promise<string>(
      (resolve) => (timer = setTimeout(() => resolve(`still open after ${STALL_BOUND_MS} ms`), STALL_BOUND_MS)),
    );
    const closedAfter = await Promise.race([socketClosed.then((at) => at - started), stillOpen]);
    clearTimeout(timer);
    expect(typeof closedAfter === 'number' ? closedAfter < STALL_BOUND_MS : closedAfter).toBe(true);

    postgres.signalAll('SIGCONT');
    const next = dataSource.createQueryRunner('master');
    try {
      expect(await pidOf(next)).not.toBe(stalledPid);
    } finally {
      await next.release();
    }
  });
});
