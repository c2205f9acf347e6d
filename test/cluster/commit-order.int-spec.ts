import type { DataSource } from 'typeorm';
import { openSse } from '../e2e/support/sse-client.js';
import { HoldingProxy } from '../support/holding-proxy.js';
import { PrivatePostgres } from '../support/private-postgres.js';
import type { ServerProcess } from '../support/server-process.js';
import { Cluster, connectSchema, type Delivery } from './support/cluster.js';

// Spec section 9, "ordered, gap-free reading": a session's records commit in sequence order,
// also when the writer gave a transaction up while its COMMIT was still on the way and went on
// with the session's next batch on another connection.
describe('commit order is sequence order within a session (real processes)', () => {
  const unavailable = PrivatePostgres.unavailable();
  if (unavailable) {
    console.warn(`commit-order test skipped: ${unavailable}`);
    it.skip('needs a private PostgreSQL server', () => undefined);
    return;
  }

  // Longer than the writer's query timeout (4 s) and its job deadline (5 s).
  const HOLD_MS = 6_000;
  let postgres: PrivatePostgres;
  let proxy: HoldingProxy;
  let cluster: Cluster | undefined;
  let db: DataSource | undefined;

  beforeAll(async () => {
    // Commit timestamps tell the order in which the rows' transactions committed.
    postgres = await PrivatePostgres.start({ track_commit_timestamp: 'on' });
    proxy = await HoldingProxy.start(postgres.port);
  });

  afterAll(async () => {
    await cluster?.stop();
    await db?.destroy();
    await proxy?.close();
    await postgres?.stop();
  });

  it('a COMMIT held past the writer timeout while the session goes on: readers miss nothing, commit order equals sequence order', async () => {
    // The reading node talks to PostgreSQL directly (and runs the migrations); the owner
    // through the proxy.
    cluster = await Cluster.start(1, postgres.url);
    const [reader] = cluster.nodes as [ServerProcess];
    const owner = await cluster.addNode({ PN_DATABASE_URL: postgres.url.replace(`:${postgres.port}/`, `:${proxy.port}/`) });
    db = await connectSchema(postgres.url);
    const session = await cluster.openSession(owner, owner);
    expect(await cluster.ownerOf(db, session.sessionId)).toBe(owner);

    const stream = await openSse(`${reader.url}/v1/sessions/${session.sessionId}/events`, { Authorization: `Bearer ${session.token}` });
    expect(stream.status).toBe(200);
    // A pager on the reading node, reading on from where it got to, as a client catching up does.
    const paged: number[] = [];
    let paging = true;
    const pager = (async () => {
      while (paging) {
        const page = await cluster!.call(
          reader,
          'GET',
          `/v1/sessions/${session.sessionId}/journal?after=${paged.at(-1) ?? 0}&limit=1000`,
          session.token,
        );
        if (page.status === 200) paged.push(...(page.body as { records: Array<{ sequence: number }> }).records.map((r) => r.sequence));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    try {
      // Clients deliver through the owner (and retry a 503 with the same body, as supervisors do).
      const deliveries: Delivery[] = [];
      const failures: unknown[] = [];
      let delivering = true;
      const worker = async (): Promise<void> => {
        while (delivering) {
          const delivery = await cluster!
            .deliver(session, () => owner)
            .catch((error: unknown) => {
              failures.push(error);
              delivering = false;
            });
          if (delivery) deliveries.push(delivery);
        }
      };
      const workers = Array.from({ length: 4 }, worker);
      const until = async (condition: () => boolean, what: string): Promise<void> => {
        const deadline = Date.now() + 60_000;
        while (!condition()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      await until(() => deliveries.length >= 20, '20 deliveries');
      const heldAt = deliveries.length;
      await proxy.holdNext('COMMIT', HOLD_MS);
      const released = Date.now() + HOLD_MS;
      // The session goes on on other connections while the COMMIT is held, and after it landed.
      await until(() => Date.now() > released + 2_000 && deliveries.length >= heldAt + 20, 'deliveries past the held COMMIT');
      delivering = false;
      await Promise.all(workers);
      expect(failures).toEqual([]);
      expect(deliveries.map((d) => d.answer.status).filter((status) => status !== 200 && status !== 202)).toEqual([]);

      const rows = (await db.query(
        `SELECT sequence, pg_xact_commit_timestamp(xmin) AS committed FROM pn_journal WHERE session_id = $1 ORDER BY sequence`,
        [session.sessionId],
      )) as Array<{ sequence: string; committed: Date }>;
      const sequences = rows.map((row) => Number(row.sequence));
      // Every notification answered 2xx is in the journal once.
      const journaled = (await db.query(`SELECT idempotency_id FROM pn_journal WHERE session_id = $1 AND kind = 'process_notification'`, [
        session.sessionId,
      ])) as Array<{ idempotency_id: string }>;
      expect(new Set(journaled.map((row) => row.idempotency_id))).toEqual(new Set(deliveries.map((d) => d.commandId)));
      expect(journaled.length).toBe(deliveries.length);

      // Commit order: in sequence order, no record's transaction committed before an earlier one's.
      const late = rows.filter((row, i) => i > 0 && row.committed.getTime() < rows[i - 1]!.committed.getTime());
      expect(late.map((row) => Number(row.sequence))).toEqual([]);

      // Both readers got every record, in order (a reader that skipped one never gets it: what
      // each has after a few seconds is compared).
      const caughtUp = Date.now() + 5_000;
      while (paged.length < sequences.length && Date.now() < caughtUp) await new Promise((resolve) => setTimeout(resolve, 20));
      paging = false;
      await pager;
      expect(paged).toEqual(sequences);
      const events = await Promise.race([
        stream.next(sequences.length),
        new Promise<[]>((resolve) => setTimeout(() => resolve([]), 5_000)),
      ]);
      expect(events.map((event) => Number(event.id))).toEqual(sequences);
    } finally {
      // Whatever failed, no reader outlives the test.
      paging = false;
      stream.close();
      await pager;
    }
  }, 120_000);
});
