import { Agent } from 'node:http';
import { DataSource } from 'typeorm';
import { jsonRequest } from '../support/http-client.js';
import { PrivatePostgres } from '../support/private-postgres.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { notification } from '../support/test-app.js';

// node-postgres' pool size, which TypeORM keeps by default.
const POOL_SIZE = 10;
const FAILED_DELIVERIES = 120;

// Every journal transaction fails on a healthy connection, as under a full disk: PostgreSQL
// answers each one with SQLSTATE 53100 (disk_full), raised here by a trigger on the journal so
// that the test needs no full file system. The failed transactions must be rolled back on their
// connections, not cost one new backend process each.
describe('PostgreSQL failing every transaction (private server)', () => {
  const unavailable = PrivatePostgres.unavailable();
  if (unavailable) {
    console.warn(`failing-store test skipped: ${unavailable}`);
    it.skip('needs a private PostgreSQL server', () => undefined);
    return;
  }
  let postgres: PrivatePostgres;
  let server: ServerProcess | undefined;
  let db: DataSource | undefined;

  // initdb and a server start, slow on a loaded machine.
  // Every connection logged as it is made: counted from the log, which is written at once (the
  // cumulative statistics can be flushed seconds later).
  beforeAll(async () => (postgres = await PrivatePostgres.start({ log_connections: 'on' })), 120_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await db?.destroy();
    await postgres?.stop();
  });

  it('answers 503 journal_unavailable, keeps its pool within its size, and recovers when the store does', async () => {
    server = await ServerProcess.start({ PN_DATABASE_URL: postgres.url });
    db = await new DataSource({ type: 'postgres', url: postgres.url, poolSize: 1 }).initialize();
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const session = await jsonRequest(agent, `${server.url}/v1/sessions`, 'POST', SERVER_ADMIN_TOKEN);
    const { session_id: sessionId, token } = session.body as { session_id: string; token: string };
    const loop = await jsonRequest(agent, `${server.url}/v1/sessions/${sessionId}/loops`, 'POST', token);
    const { loop_id: loopId } = loop.body as { loop_id: string };
    const notify = (body: Record<string, unknown>) =>
      jsonRequest(agent, `${server!.url}/v1/sessions/${sessionId}/process-completions`, 'POST', token, body);

    await db.query(`CREATE FUNCTION pn_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`);
    await db.query(`CREATE TRIGGER pn_test_disk_full BEFORE INSERT ON pn_journal FOR EACH ROW EXECUTE FUNCTION pn_test_disk_full()`);
    // Connections ever opened to the server.
    const sessionsSoFar = (): number => postgres.log().match(/connection received: /g)?.length ?? 0;
    const before = sessionsSoFar();

    const failed = Array.from({ length: FAILED_DELIVERIES }, () => notification(sessionId, loopId));
    const answers = [];
    for (let i = 0; i < failed.length; i += 8) answers.push(...(await Promise.all(failed.slice(i, i + 8).map(notify))));
    expect(answers.map((a) => `${a.status} ${(a.body as { code?: string }).code}`)).toEqual(failed.map(() => '503 journal_unavailable'));
    const opened = sessionsSoFar() - before;
    expect(opened).toBeLessThanOrEqual(POOL_SIZE);

    await db.query(`DROP TRIGGER pn_test_disk_full ON pn_journal`);
    let recovered = await notify(failed[0]!);
    for (let attempt = 0; attempt < 20 && recovered.status === 503; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      recovered = await notify(failed[0]!);
    }
    expect(recovered.status).toBe(202);
    agent.destroy();
  }, 120_000);
});
