import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptionsFromUrl } from '../../libs/process-notifications/src/persistence/connection/data-source-options.js';
import { JournalWriter, type JournalCommit } from '../../libs/process-notifications/src/persistence/journal/journal-writer.service.js';
import { JournalPages } from '../../libs/process-notifications/src/persistence/pages/journal-pages.service.js';
import { SessionLeases } from '../../libs/process-notifications/src/persistence/leases/session-leases.service.js';
import { JournalHealth } from '../../libs/process-notifications/src/persistence/health/journal-health.service.js';
import { AlreadyExistsError } from '../../libs/process-notifications/src/errors/already-exists.error.js';
import { JournalUnavailableError } from '../../libs/process-notifications/src/errors/journal-unavailable.error.js';
import { OwnerUnavailableError } from '../../libs/process-notifications/src/errors/owner-unavailable.error.js';
import type { JournalDraft } from '../../libs/process-notifications/src/persistence/journal/journal-draft.interface.js';
import { POSTGRES_URL, connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { latch } from '../support/latch.js';
import { notificationDraft } from '../support/notification-fixture.js';
import { managerOf } from '../../libs/process-notifications/src/persistence/transaction/store-transaction.js';

// The journal writer on a real PostgreSQL database (a schema of this file's own): lease fencing
// per job, the NOTIFY hint of every committed batch, reads on pooled connections with a deadline,
// and what becomes of a pooled connection after a failed transaction (rolled back and reused, or
// dropped). The pool is as small as the test needs, so a connection that is not given back makes
// the next call wait past its deadline instead of passing unnoticed.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

const LOOP = randomUUID();

const draft = (sessionId: string, idempotencyId?: string): JournalDraft => notificationDraft({ sessionId, loopId: LOOP, idempotencyId });

const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

// What the NOTIFY tests need of a node-postgres client (the driver TypeORM loaded).
interface ListenClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  end(): Promise<void>;
}

describeOnPostgres('JournalWriter on PostgreSQL', () => {
  const { name: schema, databaseUrl } = freshSchema();
  const open: Array<{ dataSource: DataSource; leases: SessionLeases; writer: JournalWriter }> = [];

  // A writer of its own (a node of its own) on the file's schema, with `poolSize` connections.
  const start = async (poolSize: number, journalTimeoutMs = 5_000) => {
    // The database named as hosts often configure it (beside the URL): still no SQLite read connection.
    const database = new URL(POSTGRES_URL).pathname.slice(1);
    const dataSource = await new DataSource({ ...dataSourceOptionsFromUrl(databaseUrl), database, poolSize } as never).initialize();
    const leases = new SessionLeases(dataSource, { leaseTtlMs: 600_000 });
    const writer = new JournalWriter(dataSource, leases, { journalTimeoutMs });
    await writer.onModuleInit();
    const commits: JournalCommit[] = [];
    writer.commits$.subscribe((commit) => commits.push(commit));
    open.push({ dataSource, leases, writer });
    return { dataSource, leases, writer, commits, pages: new JournalPages(dataSource, writer) };
  };
  const recordsOf = async (sessionId: string): Promise<string[]> =>
    (
      (await admin!.query(`SELECT idempotency_id FROM "${schema}".pn_journal WHERE session_id = $1 ORDER BY sequence`, [
        sessionId,
      ])) as Array<{
        idempotency_id: string;
      }>
    ).map((row) => row.idempotency_id);

  // Journals `ids` in a new session this writer leases, then updates the first record in place
  // (as retention drops a payload), so it no longer sits first in the table; returns the session.
  const journalThenUpdateFirst = async ({ writer, leases }: { writer: JournalWriter; leases: SessionLeases }, ids: string[]) => {
    const sessionId = randomUUID();
    leases.hold(sessionId, (await leases.acquire(sessionId))!);
    for (const id of ids) await writer.append(draft(sessionId, id));
    await admin!.query(`UPDATE "${schema}".pn_journal SET payload = '{}' WHERE session_id = $1 AND idempotency_id = $2`, [
      sessionId,
      ids[0],
    ]);
    return sessionId;
  };

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA "${schema}"`);
    // Runs the migrations once.
    await (await new DataSource(dataSourceOptionsFromUrl(databaseUrl)).initialize()).destroy();
  });

  afterEach(async () => {
    for (const { dataSource, leases, writer } of open.splice(0)) {
      await leases.release();
      await writer.onModuleDestroy();
      if (dataSource.isInitialized) await dataSource.destroy();
    }
  });

  afterAll(async () => {
    await admin!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin!.destroy();
  });

  describe('lease fencing', () => {
    it('refuses at once a session whose lease this node never held, and writes nothing', async () => {
      const { writer, commits } = await start(2);
      const sessionId = randomUUID();
      await expect(writer.append(draft(sessionId))).rejects.toBeInstanceOf(OwnerUnavailableError);
      await expect(writer.append(draft(sessionId))).rejects.toThrow(/this node does not hold its lease/);
      await expect(writer.write(() => Promise.resolve('ran'), sessionId)).rejects.toMatchObject({ code: 'owner_unavailable', sessionId });
      expect(commits).toEqual([]);
      expect(await recordsOf(sessionId)).toEqual([]);
    });

    it('in one batch, refuses only the jobs of a session taken over meanwhile, commits the others, and forgets that session', async () => {
      const { writer, leases, commits } = await start(2);
      const kept = randomUUID();
      const taken = randomUUID();
      for (const sessionId of [kept, taken]) leases.hold(sessionId, (await leases.acquire(sessionId))!);
      const keptEpoch = leases.heldEpoch(kept);
      // Another node took `taken` over: its lease row is at a later epoch now.
      await admin!.query(`UPDATE "${schema}".pn_session_leases SET epoch = epoch + 1 WHERE session_id = $1`, [taken]);
      const lost: string[] = [];
      leases.lost$.subscribe((sessionId) => lost.push(sessionId));

      const [first, refused, second] = await Promise.all([
        settle(writer.append(draft(kept))),
        settle(writer.append(draft(taken))),
        settle(writer.append(draft(kept))),
      ]);
      expect(first).toMatchObject({ value: { appended: true } });
      expect(second).toMatchObject({ value: { appended: true } });
      expect((refused as { error: unknown }).error).toBeInstanceOf(OwnerUnavailableError);
      expect((refused as { error: Error }).error.message).toMatch(/lost its lease/);
      // One transaction for all three: the refusal did not fail the batch.
      expect(commits.map((commit) => commit.size)).toEqual([3]);
      expect(await recordsOf(kept)).toHaveLength(2);
      expect(await recordsOf(taken)).toEqual([]);
      expect(lost).toEqual([taken]);
      expect(leases.heldEpoch(taken)).toBeUndefined();
      expect(leases.heldEpoch(kept)).toBe(keptEpoch);
    });
  });

  describe('NOTIFY after commit', () => {
    let listener: ListenClient;
    let hints: string[];
    let waiters: Array<() => void>;

    beforeEach(async () => {
      const { Client } = (admin!.driver as unknown as { postgres: { Client: new (config: { connectionString: string }) => ListenClient } })
        .postgres;
      listener = new Client({ connectionString: POSTGRES_URL });
      await listener.connect();
      hints = [];
      waiters = [];
      listener.on('notification', (message) => {
        if (message.channel !== 'pn_journal') return;
        hints.push(message.payload ?? '');
        for (const wake of waiters.splice(0)) wake();
      });
      await listener.query('LISTEN pn_journal');
    });
    afterEach(() => listener.end());

    // Hints of other tests on the same database are left out: only ours, and empty ones.
    const hintFor = async (accept: (payload: string) => boolean): Promise<string[]> => {
      while (!hints.some(accept)) await new Promise<void>((resolve) => waiters.push(resolve));
      return hints;
    };

    it('sends one hint per committed batch naming its sessions and the node that sent it, and none for a transaction that wrote no record', async () => {
      const { writer, leases } = await start(2);
      const a = randomUUID();
      const b = randomUUID();
      await writer.write(() => Promise.resolve());
      await writer.write(async (_store, journal) => {
        await journal.append(draft(a));
        await journal.append(draft(b));
        await journal.append(draft(a));
      });
      const received = await hintFor((payload) => payload.includes(a));
      const ours = received.filter((payload) => payload === '' || payload.includes(a) || payload.includes(b));
      expect(ours).toEqual([`${a},${b},@${leases.nodeId}`]);
    });

    it('names the sessions while the list fits in 7,900 characters, and hints "any session" past that', async () => {
      const { writer, leases } = await start(2);
      // 212 ids of 36 characters and one of 18, with 212 commas, then `,@` and the node's id (36):
      // exactly 7,900 characters.
      const fits = [...Array.from({ length: 212 }, () => randomUUID()), randomUUID().slice(0, 18)];
      const tooLong = [...Array.from({ length: 212 }, () => randomUUID()), randomUUID().slice(0, 19)];
      const writeAll = (sessions: string[]) =>
        writer.write(async (_store, journal) => {
          for (const sessionId of sessions) await journal.append(draft(sessionId));
        });
      await writeAll(fits);
      const listed = `${fits.join(',')},@${leases.nodeId}`;
      expect(await hintFor((payload) => payload.startsWith(fits[0]!))).toContain(listed);
      expect(listed).toHaveLength(7_900);
      const before = hints.length;
      await writeAll(tooLong);
      await hintFor((payload) => payload === '*' && hints.indexOf(payload, before) >= before);
      expect(hints.slice(before).some((payload) => payload.includes(tooLong[0]!))).toBe(false);
    });
  });

  describe('reads on a pooled connection', () => {
    it('answers a read the database does not finish within the deadline with JournalUnavailableError', async () => {
      const { writer } = await start(2, 300);
      const answer = await settle(writer.read((store) => managerOf(store).query('SELECT pg_sleep(1)')));
      expect((answer as { error: unknown }).error).toBeInstanceOf(JournalUnavailableError);
      expect((answer as { error: Error }).error.message).toBe('journal unavailable: the database did not answer within 300 ms');
    });

    it("hands a read's domain error back as it is, and any other failure as JournalUnavailableError", async () => {
      const { writer } = await start(2);
      const domain = new AlreadyExistsError('loop', LOOP);
      await expect(
        writer.read(() => {
          throw domain;
        }),
      ).rejects.toBe(domain);
      const failed = await settle(writer.read((store) => managerOf(store).query('SELECT no_such_column FROM pn_journal')));
      expect((failed as { error: unknown }).error).toBeInstanceOf(JournalUnavailableError);
      expect((failed as { error: Error }).error.message).toMatch(/no_such_column/);
      await expect(writer.read((store) => managerOf(store).query('SELECT 1 AS one'))).resolves.toEqual([{ one: 1 }]);
    });

    it('returns a page in sequence order, even after a record was updated in place (a payload dropped by retention)', async () => {
      const node = await start(2);
      // Idempotency ids in descending order, so neither the heap nor the idempotency index is in sequence order.
      const ids = Array.from({ length: 5 }, () => randomUUID())
        .sort()
        .reverse();
      const sessionId = await journalThenUpdateFirst(node, ids);
      const page = await node.pages.page(sessionId, 0, 10);
      expect(page.map((record) => record.idempotencyId)).toEqual(ids);
    });

    it('returns a page in sequence order whatever plan the database picks (a sequential scan: table order)', async () => {
      // The planner may read a session's records by a sequential scan, which returns rows in the
      // order they sit in the table, not in the order of an index. (A bitmap scan would not do:
      // it follows an updated row's chain from the row's first place.)
      const node = await start(2);
      // In the URL: node-postgres lets a connection string's options win over `extra`.
      const scanOnly = `-c search_path=${schema} -c enable_indexscan=off -c enable_indexonlyscan=off -c enable_bitmapscan=off`;
      const heapOnly = await new DataSource({
        ...dataSourceOptionsFromUrl(`${POSTGRES_URL}?options=${encodeURIComponent(scanOnly)}`),
        poolSize: 1,
      } as never).initialize();
      const heapLeases = new SessionLeases(heapOnly);
      const heapReader = new JournalWriter(heapOnly, heapLeases);
      open.push({ dataSource: heapOnly, leases: heapLeases, writer: heapReader });
      const ids = Array.from({ length: 5 }, () => randomUUID());
      // The first record, updated in place, now sits after the others in the table.
      const sessionId = await journalThenUpdateFirst(node, ids);
      const page = await new JournalPages(heapOnly, heapReader).page(sessionId, 0, 10);
      expect(page.map((record) => record.idempotencyId)).toEqual(ids);
    });

    it('does not wait behind a write transaction in progress', async () => {
      const { writer, pages } = await start(2);
      const sessionId = randomUUID();
      const [gate, release] = latch();
      const [inTransaction, entered] = latch();
      const held = writer.write(async (_store, journal) => {
        await journal.append(draft(sessionId));
        entered();
        await gate;
      });
      await inTransaction;
      await expect(pages.page(sessionId, 0, 10)).resolves.toEqual([]);
      release();
      await held;
      await expect(pages.page(sessionId, 0, 10)).resolves.toHaveLength(1);
    });
  });

  describe('health', () => {
    it('is healthy on a working database, and healthy again after a store failure without any other write', async () => {
      const { writer, dataSource } = await start(2);
      const health = new JournalHealth(writer, dataSource);
      await expect(health.isHealthy()).resolves.toBe(true);
      // A store failure (a statement timeout) puts the journal in an outage...
      await expect(
        writer.write(async (store) => {
          await managerOf(store).query("SET LOCAL statement_timeout = '50ms'");
          await managerOf(store).query('SELECT pg_sleep(2)');
        }),
      ).rejects.toBeInstanceOf(JournalUnavailableError);
      // ...which the probe alone ends, the database being fine.
      await expect(health.isHealthy()).resolves.toBe(true);
    });
  });

  // Contract, section 9: a node cut from its database answers within 2 s. The writer takes a
  // server that answers none of its units of work for 1.5 s for unreachable, and only that.
  describe('a server that does not answer', () => {
    it('answers a unit of work the server leaves unanswered for 1.5 s, long before its deadline', async () => {
      const { writer } = await start(2, 10_000);
      const answer = await settle(writer.write((store) => managerOf(store).query('SELECT pg_sleep(2.5)')));
      expect(answer).toEqual({ error: expect.any(JournalUnavailableError) });
      expect((answer as { error: Error }).error.message).toMatch(/has not answered for 1500 ms/);
    });

    it('keeps the whole deadline for a batch that takes longer while the server answers each unit of work', async () => {
      const { writer, commits } = await start(2, 10_000);
      // Queued in one tick: one batch of four, 2.4 s in all, 0.6 s between two answers.
      const answers = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          settle(
            writer.write(async (store) => {
              await managerOf(store).query('SELECT pg_sleep(0.6)');
              return i;
            }),
          ),
        ),
      );
      expect(answers).toEqual([{ value: 0 }, { value: 1 }, { value: 2 }, { value: 3 }]);
      expect(commits.map((commit) => commit.size)).toEqual([4]);
    });
  });

  describe('timers', () => {
    it('leaves no timer behind after a read answered in time', async () => {
      const dataSource = await new DataSource({
        ...dataSourceOptionsFromUrl(databaseUrl),
        poolSize: 1,
        // No idle-connection timer in the pool, so the only timers are the writer's.
        extra: { idleTimeoutMillis: 0 },
      } as never).initialize();
      const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
      try {
        const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
        await writer.read((store) => managerOf(store).query('SELECT 1'));
        const before = timers();
        for (let i = 0; i < 3; i++) await writer.read((store) => managerOf(store).query('SELECT 1'));
        expect(timers()).toBe(before);
      } finally {
        await dataSource.destroy();
      }
    });
  });

  describe('the pooled connection after a failed transaction', () => {
    it('rolls back a unit of work whose statement failed and reuses its connection, out of any transaction', async () => {
      // One connection: if it were not given back, or given back inside the failed transaction,
      // the next write could not run.
      const { writer } = await start(1, 2_000);
      const sessionId = randomUUID();
      const pid = async () =>
        ((await writer.write((store) => managerOf(store).query('SELECT pg_backend_pid() AS pid'))) as [{ pid: number }])[0].pid;
      const before = await pid();
      const failed = await settle(
        writer.write(async (store, journal) => {
          await journal.append(draft(sessionId));
          await managerOf(store).query('SELECT no_such_column FROM pn_journal');
        }),
      );
      // A statement's own failure does not cost the connection.
      expect(await pid()).toBe(before);
      expect((failed as { error: unknown }).error).toBeInstanceOf(JournalUnavailableError);
      expect(await recordsOf(sessionId)).toEqual([]);
      const next = draft(sessionId);
      await expect(writer.write((_store, journal) => journal.append(next))).resolves.toMatchObject({ appended: true });
      expect(await recordsOf(sessionId)).toEqual([next.idempotencyId]);
    });

    it('drops a connection on which ROLLBACK failed and goes on with a new one', async () => {
      // One connection: kept out of the pool after its ROLLBACK failed, the retry of the unit of
      // work and every later write would wait for it past their deadline.
      const { writer } = await start(1, 2_000);
      let runs = 0;
      let failedPid = 0;
      const failed = await settle(
        writer.write(async (store) => {
          runs += 1;
          if (runs === 1) {
            failedPid = ((await managerOf(store).query('SELECT pg_backend_pid() AS pid')) as [{ pid: number }])[0].pid;
            // The client is being closed (by its owner, so it reports no error of its own): the
            // writer's ROLLBACK after the failure below cannot be sent.
            void (managerOf(store).queryRunner as unknown as { databaseConnection: { end(): Promise<void> } }).databaseConnection.end();
          }
          throw new Error('the unit of work failed');
        }),
      );
      // Retried alone (a failure of its own, not of the store) on a new connection, where it failed again.
      expect(runs).toBe(2);
      expect((failed as { error: unknown }).error).toBeInstanceOf(JournalUnavailableError);
      expect((failed as { error: Error }).error.message).toMatch(/the unit of work failed/);
      const [{ pid }] = (await writer.write((store) => managerOf(store).query('SELECT pg_backend_pid() AS pid'))) as [{ pid: number }];
      expect(failedPid).toBeGreaterThan(0);
      expect(pid).not.toBe(failedPid);
    });

    it('keeps a connection whose statement the server timed out (an ERROR on a healthy connection): rolled back, back in the pool', async () => {
      const { writer } = await start(1, 3_000);
      let failedPid = 0;
      const failed = await settle(
        writer.write(async (store) => {
          failedPid = ((await managerOf(store).query('SELECT pg_backend_pid() AS pid')) as [{ pid: number }])[0].pid;
          await managerOf(store).query("SET LOCAL statement_timeout = '50ms'");
          await managerOf(store).query('SELECT pg_sleep(2)');
        }),
      );
      expect((failed as { error: unknown }).error).toBeInstanceOf(JournalUnavailableError);
      expect((failed as { error: Error }).error.message).toMatch(/statement timeout/);
      // A pool of one: the next transaction runs on the very connection that failed.
      const [{ pid }] = (await writer.write((store) => managerOf(store).query('SELECT pg_backend_pid() AS pid'))) as [{ pid: number }];
      expect(failedPid).toBeGreaterThan(0);
      expect(pid).toBe(failedPid);
    });
  });
});
