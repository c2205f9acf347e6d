import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { DataSource } from 'typeorm';
import { AdminReads } from '../../libs/process-notifications/src/persistence/admin-reads/admin-reads.service.js';
import { dataSourceOptionsFromUrl } from '../../libs/process-notifications/src/persistence/connection/data-source-options.js';
import { JournalNotifyListener } from '../../libs/process-notifications/src/persistence/journal/journal-notify-listener.js';
import { JournalWriter } from '../../libs/process-notifications/src/persistence/journal/journal-writer.service.js';
import { JournalPages } from '../../libs/process-notifications/src/persistence/pages/journal-pages.service.js';
import { SessionStore } from '../../libs/process-notifications/src/persistence/sessions/session-store.service.js';
import { LoopRows } from '../../libs/process-notifications/src/persistence/sessions/loop-rows.js';
import { runMigrationsExclusively } from '../../libs/process-notifications/src/persistence/migrations/migration-lock.js';
import { ProcessOutcomes } from '../../libs/process-notifications/src/persistence/outcomes/process-outcomes.service.js';
import { RefusalStore, type RefusalRow } from '../../libs/process-notifications/src/persistence/refusals/refusal-store.service.js';
import { SessionLeases } from '../../libs/process-notifications/src/persistence/leases/session-leases.service.js';
import { SessionRows } from '../../libs/process-notifications/src/persistence/sessions/session-rows.js';
import { hashToken } from '../../libs/process-notifications/src/persistence/sessions/session-credentials.js';
import { storeDialectOf } from '../../libs/process-notifications/src/persistence/dialects/store-dialects.js';
import { managerOf } from '../../libs/process-notifications/src/persistence/transaction/store-transaction.js';
import { JournalFeed } from '../../libs/process-notifications/src/journal/journal-feed.service.js';
import { AlreadyExistsError } from '../../libs/process-notifications/src/errors/already-exists.error.js';
import { IdempotencyCollisionError } from '../../libs/process-notifications/src/errors/idempotency-collision.error.js';
import { OwnerUnavailableError } from '../../libs/process-notifications/src/errors/owner-unavailable.error.js';
import type { ProcessLifecycleRecord } from '../../libs/process-notifications/src/model/process-lifecycle-record.interface.js';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { notificationDraft } from '../support/notification-fixture.js';
import type { OutcomeKind } from 'process-notifications-contract';
import { topologyOf } from '../../libs/process-notifications/src/persistence/connection/topology.provider.js';

/**
 * One set of assertions for every port of `persistence/`, run against each database the library
 * supports (issue 38): a SQLite file in a directory of its own and a fresh PostgreSQL schema.
 * Each store is built as the module builds it (migrations under their lock, the writer with its
 * read connection, the leases with their heartbeat); each test owns the sessions it opens.
 */

/** The ports of one database, and what a test needs to use them as the library does. */
interface Store {
  readonly dataSource: DataSource;
  readonly leases: SessionLeases;
  readonly writer: JournalWriter;
  readonly pages: JournalPages;
  readonly sessions: SessionStore;
  readonly admin: AdminReads;
  readonly refusals: RefusalStore;
  readonly outcomes: ProcessOutcomes;
  readonly listener: JournalNotifyListener;
  readonly feed: JournalFeed;
  close(): Promise<void>;
}

async function openStore(databaseUrl: string): Promise<Store> {
  const dataSource = await new DataSource({ ...dataSourceOptionsFromUrl(databaseUrl), migrationsRun: false }).initialize();
  await runMigrationsExclusively(dataSource, { transaction: 'all' });
  const leases = new SessionLeases(dataSource, { leaseTtlMs: 600_000 });
  await leases.onModuleInit();
  const writer = new JournalWriter(dataSource, leases);
  await writer.onModuleInit();
  const listener = new JournalNotifyListener(dataSource);
  const feed = new JournalFeed(listener, writer, topologyOf(dataSource), leases);
  await feed.onModuleInit();
  return {
    dataSource,
    leases,
    writer,
    pages: new JournalPages(dataSource, writer),
    sessions: new SessionStore(writer),
    admin: new AdminReads(writer, dataSource),
    refusals: new RefusalStore(writer, leases, dataSource),
    outcomes: new ProcessOutcomes(dataSource, writer),
    listener,
    feed,
    close: async () => {
      feed.onModuleDestroy();
      await writer.onModuleDestroy();
      await leases.onModuleDestroy();
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
}

interface Database {
  readonly name: string;
  /** A database URL of its own, and how to drop what it made. */
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

const sqlite: Database = {
  name: 'SQLite',
  create: () => {
    const dir = mkdtempSync(join(tmpdir(), 'pn-store-conformance-'));
    return Promise.resolve({
      url: `sqlite:${join(dir, 'store.db')}`,
      drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    });
  },
};

const admin = await connectPostgresAdmin();
const postgres: Database = {
  name: 'PostgreSQL',
  create: async () => {
    const schema = freshSchema();
    await admin!.query(`CREATE SCHEMA ${schema.name}`);
    return { url: schema.databaseUrl, drop: async () => void (await admin!.query(`DROP SCHEMA ${schema.name} CASCADE`)) };
  },
};

afterAll(async () => {
  if (admin?.isInitialized) await admin.destroy();
});

const sessionRows = new SessionRows();
const loopRows = new LoopRows();

describe.each(admin ? [sqlite, postgres] : [sqlite])('the store on $name', (database) => {
  let store: Store;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const created = await database.create();
    drop = created.drop;
    store = await openStore(created.url);
  });
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });

  // A session of the test's own, owned by this node (on PostgreSQL its lease is held: its writes are fenced).
  const openSession = async (createdAt = new Date().toISOString()): Promise<string> => {
    const sessionId = randomUUID();
    await store.writer.write((tx) => sessionRows.insert(tx, sessionId, hashToken(`token-${sessionId}`), createdAt));
    if (topologyOf(store.dataSource).shared) store.leases.hold(sessionId, (await store.leases.acquire(sessionId))!);
    return sessionId;
  };
  // An outcome record (no exit code) of a command of the loop.
  const outcomeRecord = (sessionId: string, loopId: string, commandId: string, kind: OutcomeKind): ProcessLifecycleRecord => ({
    event_id: randomUUID(),
    kind,
    session_id: sessionId,
    loop_id: loopId,
    process_handle: 'p',
    origin_execution_id: 'x',
    state: 'exited',
    process_created_at: '2026-01-01T00:00:00.000Z',
    has_exit_code: false,
    command_id: commandId,
  });
  // A lifecycle record journaled and linked as its notification's outcome (if it is one): its sequence.
  const journalLifecycle = (sessionId: string, loopId: string, lifecycle: ProcessLifecycleRecord): Promise<number> =>
    store.writer.write(async (tx, journal) => {
      const { record } = await journal.append({
        sessionId,
        loopId,
        kind: lifecycle.kind,
        idempotencyId: lifecycle.event_id,
        payload: { ...lifecycle },
      });
      await store.outcomes.link(tx, journal, sessionId, record.sequence, lifecycle);
      return record.sequence;
    }, sessionId);
  const openLoop = async (sessionId: string, createdAt = new Date().toISOString()): Promise<string> => {
    const loopId = randomUUID();
    await store.writer.write((tx) => loopRows.insert(tx, sessionId, loopId, 'native', createdAt), sessionId);
    return loopId;
  };

  describe('session rows', () => {
    it('insert, find by id and by token (its hash stored), rotate the token, close once', async () => {
      const sessionId = randomUUID();
      await expect(store.writer.lookup((reader) => sessionRows.exists(reader, sessionId))).resolves.toBe(false);
      const sessionId2 = await openSession('2026-01-01T00:00:00.000Z');
      await expect(store.writer.lookup((reader) => sessionRows.exists(reader, sessionId2))).resolves.toBe(true);
      await expect(store.writer.lookup((reader) => sessionRows.byId(reader, sessionId2))).resolves.toMatchObject({
        sessionId: sessionId2,
        tokenHash: hashToken(`token-${sessionId2}`),
        createdAt: '2026-01-01T00:00:00.000Z',
        closedAt: null,
      });
      await expect(store.sessions.sessionById(sessionId2)).resolves.toEqual({
        sessionId: sessionId2,
        createdAt: '2026-01-01T00:00:00.000Z',
        closedAt: null,
      });
      await expect(store.sessions.sessionOfToken(`token-${sessionId2}`)).resolves.toMatchObject({ sessionId: sessionId2 });

      let rotated = false;
      await store.sessions.rotateSessionToken(sessionId2, 'rotated', () => (rotated = true));
      expect(rotated).toBe(true);
      await expect(store.sessions.sessionOfToken(`token-${sessionId2}`)).resolves.toBeNull();
      await expect(store.sessions.sessionOfToken('rotated')).resolves.toMatchObject({ sessionId: sessionId2 });

      const closedAt = '2026-01-02T00:00:00.000Z';
      await expect(store.sessions.closeSession(sessionId2, closedAt, () => undefined)).resolves.toBe(closedAt);
      await expect(store.sessions.closeSession(sessionId2, '2026-01-03T00:00:00.000Z', () => undefined)).resolves.toBe(closedAt);
      await expect(store.sessions.sessionOfToken('rotated')).resolves.toBeNull();
      await expect(store.writer.lookup((reader) => sessionRows.byId(reader, sessionId2))).resolves.toMatchObject({
        closedAt,
        tokenHash: null,
      });
    });

    it('holds the token of a session it opens held, in step with its rotation and close; answers sessions without a hash', async () => {
      const sessionId = randomUUID();
      const [first, second] = [`first-${sessionId}`, `second-${sessionId}`];
      await expect(store.sessions.openSession(sessionId, first, true)).resolves.toEqual({
        sessionId,
        createdAt: expect.any(String),
        closedAt: null,
      });
      await expect(store.sessions.openSession(sessionId, second, true)).rejects.toThrow(AlreadyExistsError);
      expect(store.sessions.heldSessionOfToken(first)).toBe(sessionId);
      if (topologyOf(store.dataSource).shared) store.leases.hold(sessionId, (await store.leases.acquire(sessionId))!);
      await store.sessions.rotateSessionToken(sessionId, second);
      expect(store.sessions.heldSessionOfToken(first)).toBeUndefined();
      expect(store.sessions.heldSessionOfToken(second)).toBe(sessionId);
      await store.sessions.closeSession(sessionId, new Date().toISOString(), () => undefined);
      expect(store.sessions.heldSessionOfToken(second)).toBeUndefined();
      await expect(store.sessions.sessionOfToken(second)).resolves.toBeNull();

      const notHeld = randomUUID();
      await store.sessions.openSession(notHeld, `token-${notHeld}`, false);
      expect(store.sessions.heldSessionOfToken(`token-${notHeld}`)).toBeUndefined();
      await expect(store.sessions.sessionOfToken(`token-${notHeld}`)).resolves.toEqual({
        sessionId: notHeld,
        createdAt: expect.any(String),
        closedAt: null,
      });
    });
  });

  describe('loop rows', () => {
    it('insert, count, find and stop the loops of one session only', async () => {
      const sessionId = await openSession();
      const other = await openSession();
      const first = await openLoop(sessionId);
      await openLoop(sessionId);
      await openLoop(other);
      await expect(store.writer.lookup((reader) => loopRows.count(reader, sessionId))).resolves.toBe(2);
      await expect(store.writer.lookup((reader) => loopRows.exists(reader, sessionId, first))).resolves.toBe(true);
      await expect(store.writer.lookup((reader) => loopRows.exists(reader, other, first))).resolves.toBe(false);
      await store.writer.write((tx) => loopRows.stop(tx, sessionId, first), sessionId);
      const loops = await store.admin.loops({ sessionId, stoppedOnly: true }, 10);
      expect(loops.map((loop) => [loop.loopId, loop.state])).toEqual([[first, 'stopped']]);
    });
  });

  describe('journal append', () => {
    it('appends a new record, answers a duplicate with the original, refuses a collision naming the fields', async () => {
      const sessionId = await openSession();
      const loopId = await openLoop(sessionId);
      const draft = notificationDraft({ sessionId, loopId });
      const first = await store.writer.append(draft);
      expect(first).toMatchObject({ appended: true, record: { sessionId, loopId, idempotencyId: draft.idempotencyId } });
      const again = await store.writer.append(draft);
      expect(again.appended).toBe(false);
      expect(again.record.sequence).toBe(first.record.sequence);
      const collision = await store.writer
        .append(notificationDraft({ sessionId, loopId, idempotencyId: draft.idempotencyId, processHandle: 'other' }))
        .catch((error: unknown) => error);
      expect(collision).toBeInstanceOf(IdempotencyCollisionError);
      expect(collision).toMatchObject({ sequence: first.record.sequence, differingFields: ['process_handle'] });
      const later = await store.writer.append(notificationDraft({ sessionId, loopId }));
      expect(later.record.sequence).toBeGreaterThan(first.record.sequence);
      await expect(store.pages.page(sessionId, 0, 10)).resolves.toEqual([
        expect.objectContaining({ sequence: first.record.sequence }),
        expect.objectContaining({ sequence: later.record.sequence }),
      ]);
    });
  });

  describe('consume', () => {
    it('consumes once, answers a second consume with the first record, and an unknown id as not found', async () => {
      const sessionId = await openSession();
      const loopId = await openLoop(sessionId);
      const otherLoop = await openLoop(sessionId);
      const { record } = await store.writer.append(notificationDraft({ sessionId, loopId }));
      const commandId = record.idempotencyId;
      const unknown = randomUUID();
      const [once] = await store.writer.consume(sessionId, loopId, [commandId], () => false);
      expect(once).toEqual({ commandId, consumed: true, sequence: expect.any(Number) as number });
      const twice = await store.writer.consume(sessionId, loopId, [commandId, unknown], () => false);
      expect(twice).toEqual([
        { commandId, consumed: false, sequence: (once as { sequence: number }).sequence },
        { commandId: unknown, notFound: true },
      ]);
      // Another loop of the session never had it.
      await expect(store.writer.consume(sessionId, otherLoop, [commandId], () => false)).resolves.toEqual([{ commandId, notFound: true }]);
      await expect(store.pages.consumptionOf(sessionId, commandId)).resolves.toMatchObject({ causeCommandId: commandId });
    });
  });

  describe('admin reads', () => {
    it('page sessions newest first with their counts, and loops as selected', async () => {
      // Far in the future, so these three are the newest sessions of the database.
      const [a, b, c] = [
        await openSession('2999-01-01T00:00:01.000Z'),
        await openSession('2999-01-01T00:00:02.000Z'),
        await openSession('2999-01-01T00:00:03.000Z'),
      ];
      const running = await openLoop(c, '2999-01-01T00:00:04.000Z');
      const stopped = await openLoop(c, '2999-01-01T00:00:05.000Z');
      await store.writer.append(notificationDraft({ sessionId: c, loopId: running }));
      const { record } = await store.writer.append(notificationDraft({ sessionId: c, loopId: running }));
      const last = await store.writer.append(notificationDraft({ sessionId: c, loopId: stopped }));
      await store.writer.write((tx) => loopRows.stop(tx, c, stopped), c);

      const first = await store.admin.sessions(2);
      expect(first.map((row) => row.sessionId)).toEqual([c, b]);
      expect(first[0]).toEqual({
        sessionId: c,
        createdAt: '2999-01-01T00:00:03.000Z',
        closedAt: null,
        lastSequence: last.record.sequence,
        loops: 2,
        runningLoops: 1,
        unconsumed: 3,
      });
      const next = await store.admin.sessions(2, ['2999-01-01T00:00:02.000Z', b]);
      expect(next.map((row) => row.sessionId)[0]).toBe(a);
      expect(next[0]).toMatchObject({ loops: 0, runningLoops: 0, unconsumed: 0, lastSequence: 0 });

      const loops = await store.admin.loops({ sessionId: c }, 10);
      expect(loops.map((loop) => [loop.loopId, loop.state, loop.unconsumed])).toEqual([
        [stopped, 'stopped', 1],
        [running, 'running', 2],
      ]);
      expect((await store.admin.loops({ sessionId: c }, 1, ['2999-01-01T00:00:05.000Z', c, stopped])).map((loop) => loop.loopId)).toEqual([
        running,
      ]);
      expect((await store.admin.loops({ sessionId: c, unconsumedAtLeast: 2 }, 10)).map((loop) => loop.loopId)).toEqual([running]);
      expect(
        await store.admin.loops({ sessionId: c, withUnconsumed: true, oldestUnconsumedBefore: '2000-01-01T00:00:00.000Z' }, 10),
      ).toEqual([]);

      await store.writer.consume(c, running, [record.idempotencyId], () => false);
      expect((await store.admin.loops({ sessionId: c }, 10)).map((loop) => loop.unconsumed)).toEqual([1, 1]);
      const [found] = await store.admin.notifications(record.idempotencyId);
      expect(found).toMatchObject({
        sessionId: c,
        loopId: running,
        loopState: 'running',
        sequence: record.sequence,
        consumedSequence: expect.any(Number) as number,
      });
      expect(JSON.parse(found!.payload!)).toMatchObject({ command_id: record.idempotencyId });
      await expect(store.admin.notifications(randomUUID())).resolves.toEqual([]);
      expect(await store.admin.sessionCount()).toBeGreaterThanOrEqual(3);
    });
  });

  describe('process outcomes', () => {
    it('link the first completed record naming a command, never a later one, in its transaction', async () => {
      const sessionId = await openSession();
      const loopId = await openLoop(sessionId);
      const commandId = randomUUID();
      const link = (eventId: string, exitCode: number) =>
        journalLifecycle(sessionId, loopId, {
          ...outcomeRecord(sessionId, loopId, commandId, 'completed'),
          event_id: eventId,
          has_exit_code: true,
          exit_code: exitCode,
        });
      const firstEvent = randomUUID();
      const sequence = await link(firstEvent, 3);
      await link(randomUUID(), 4);
      const outcomes = await store.outcomes.of(sessionId, [commandId, randomUUID()]);
      expect([...outcomes.keys()]).toEqual([commandId]);
      expect(outcomes.get(commandId)).toMatchObject({ eventId: firstEvent, kind: 'completed', sequence, hasExitCode: true, exitCode: 3 });
    });

    // The links of a batch are written together before it commits (one statement on PostgreSQL):
    // sent at once, the records of several commands share batches, and each command's first
    // journaled record must still be its outcome.
    // Fault: a unit fails its shared batch, which rolls back; each unit then runs alone. A link
    // the rolled-back attempt gave (on PostgreSQL held until the batch's end, naming a sequence
    // that never committed) must not outlive it: the outcome is the committed record's.
    it('link the committed record, not the rolled-back attempt, when another unit fails their shared batch', async () => {
      const sessionId = await openSession();
      const loopId = await openLoop(sessionId);
      const commandId = randomUUID();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // Holds the writer, so the next two units are queued into one batch behind it.
      const holding = store.writer.write(() => gate, sessionId);
      const linked = journalLifecycle(sessionId, loopId, outcomeRecord(sessionId, loopId, commandId, 'completed'));
      const failing = store.writer.write(async () => {
        throw new Error('a unit that fails its batch');
      }, sessionId);
      release();
      await holding;
      await expect(failing).rejects.toThrow('a unit that fails its batch');
      const sequence = await linked;
      const outcomes = await store.outcomes.of(sessionId, [commandId]);
      expect(outcomes.get(commandId)).toMatchObject({ sequence });
    });

    it("link each command's first record when many records of many commands commit in shared batches", async () => {
      const sessionId = await openSession();
      const loopId = await openLoop(sessionId);
      const commands = Array.from({ length: 8 }, () => randomUUID());
      const sent = commands.flatMap((commandId, index) =>
        [0, 1, 2, 3].map((round) => ({ commandId, eventId: randomUUID(), exitCode: index * 10 + round })),
      );
      // Interleaved: each command's records are spread over the whole run.
      sent.sort((a, b) => (a.exitCode % 10) - (b.exitCode % 10));
      const sequences = await Promise.all(
        sent.map(({ commandId, eventId, exitCode }) =>
          journalLifecycle(sessionId, loopId, {
            ...outcomeRecord(sessionId, loopId, commandId, 'completed'),
            event_id: eventId,
            has_exit_code: true,
            exit_code: exitCode,
          }),
        ),
      );
      const outcomes = await store.outcomes.of(sessionId, commands);
      for (const commandId of commands) {
        const first = sent
          .map((each, index) => ({ ...each, sequence: sequences[index]! }))
          .filter((each) => each.commandId === commandId)
          .sort((a, b) => a.sequence - b.sequence)[0]!;
        expect(outcomes.get(commandId)).toMatchObject({ eventId: first.eventId, sequence: first.sequence, exitCode: first.exitCode });
      }
    });
  });

  describe('refusal store', () => {
    it('keeps refusals newest first, by command id', async () => {
      const commandId = randomUUID();
      const refusal = (code: string): RefusalRow => ({
        at: new Date().toISOString(),
        code,
        cause: null,
        sessionId: randomUUID(),
        loopId: null,
        commandId,
        eventId: null,
        originalSequence: code === 'idempotency_collision' ? 7 : null,
        differingFields: code === 'idempotency_collision' ? ['state', 'reason'] : null,
        nodeId: store.refusals.nodeId,
      });
      const saved = [refusal('inbox_full'), refusal('idempotency_collision')];
      await store.refusals.save(saved);
      await expect(store.refusals.ofCommand(commandId)).resolves.toEqual([saved[1], saved[0]]);
      await expect(store.refusals.recent(1)).resolves.toEqual([saved[1]]);
    });
  });

  describe('loop stream rows', () => {
    it("reads one loop's notifications and consumed records after a sequence, never another loop's", async () => {
      const sessionId = await openSession();
      const loopId = await openLoop(sessionId);
      const other = await openLoop(sessionId);
      const one = await store.writer.append(notificationDraft({ sessionId, loopId }));
      await store.writer.append(notificationDraft({ sessionId, loopId: other }));
      const two = await store.writer.append(notificationDraft({ sessionId, loopId }));
      await expect(store.pages.loopStreamStart(sessionId, loopId)).resolves.toEqual({
        oldestUnconsumed: one.record.sequence,
        lastSequence: two.record.sequence,
      });
      const [consumed] = await store.writer.consume(sessionId, loopId, [one.record.idempotencyId], () => true);
      const page = await store.pages.loopStreamPage(sessionId, loopId, 0, 10);
      expect(page.rows.map((row) => [row.kind, row.sequence])).toEqual([
        ['notification', two.record.sequence],
        ['consumed', (consumed as { sequence: number }).sequence],
      ]);
      expect(page.more).toBe(false);
      await expect(store.pages.loopStreamStart(sessionId, randomUUID())).resolves.toBeUndefined();
    });
  });

  describe('session loop stream rows', () => {
    // Issue 37: one read serves every loop stream of a session, so what it gives a loop must be
    // exactly that loop's own page over the same range, for any position and page size.
    it('give each loop exactly its own page over the same range, from any position, at any page size', async () => {
      const sessionId = await openSession();
      const loops = [await openLoop(sessionId), await openLoop(sessionId), await openLoop(sessionId)];
      let seed = 37;
      const random = (n: number): number => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        // Its high bits: the low bits of this generator repeat (the lowest alternates), which
        // would put every record of a session in the same loop.
        return Math.floor((seed / 2 ** 31) * n);
      };
      const notified: Array<{ loopId: string; commandId: string }> = [];
      const outcome = (loopId: string, commandId: string): Promise<unknown> =>
        journalLifecycle(sessionId, loopId, outcomeRecord(sessionId, loopId, commandId, random(2) === 0 ? 'completed' : 'lost'));
      for (let step = 0; step < 90; step++) {
        const loopId = loops[random(loops.length)]!;
        const action = random(10);
        const earlier = notified.filter((entry) => entry.loopId === loopId);
        if (action < 5 || earlier.length === 0) {
          const commandId = randomUUID();
          // Now and then the outcome is journaled before its notification.
          if (action === 9) await outcome(loopId, commandId);
          await store.writer.append(notificationDraft({ sessionId, loopId, idempotencyId: commandId }));
          notified.push({ loopId, commandId });
        } else if (action < 8) {
          await store.writer.consume(sessionId, loopId, [earlier[random(earlier.length)]!.commandId], () => true);
        } else {
          await outcome(loopId, earlier[random(earlier.length)]!.commandId);
        }
      }
      const { lastSequence } = (await store.pages.loopStreamStart(sessionId, loops[0]!))!;
      let compared = 0;
      for (let after = 0; after <= lastSequence; after += 1 + random(7)) {
        const limit = 1 + random(40);
        const shared = await store.pages.sessionLoopStreamPage(sessionId, after, limit);
        for (const loopId of loops) {
          const own = await store.pages.loopStreamPage(sessionId, loopId, after, 10_000);
          const expected = own.rows.filter((row) => row.sequence <= shared.last);
          expect(shared.rows.filter((entry) => entry.loopId === loopId).map((entry) => entry.row)).toEqual(expected);
          compared += expected.length;
        }
      }
      // The workload reached every kind of row the stream has.
      const kinds = new Set((await store.pages.sessionLoopStreamPage(sessionId, 0, 10_000)).rows.map((entry) => entry.row.kind));
      expect([...kinds].sort()).toEqual(['consumed', 'notification', 'outcome']);
      expect(compared).toBeGreaterThan(100);
    });
  });

  describe('loop stream ranges', () => {
    // Issue 46: one read serves the loop streams of many sessions, one range each from its own
    // position. Each range's share must be exactly its own read (its loop's page, or its
    // session's loops' page) over the range it covered, for any positions, mix and page size,
    // and a range must never move past its own records (another session's sequence says
    // nothing of what this one may still commit below it, unless one connection commits them all
    // in sequence order, as on SQLite).
    // A journal of three sessions of two loops each: notifications, consumes and outcomes, mixed.
    async function mixedJournal(seed: number) {
      const sessions = [await openSession(), await openSession(), await openSession()];
      const loopsOf = new Map<string, string[]>();
      for (const sessionId of sessions) loopsOf.set(sessionId, [await openLoop(sessionId), await openLoop(sessionId)]);
      const random = (n: number): number => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        // Its high bits: the low bits of this generator repeat (the lowest alternates), which
        // would put every record of a session in the same loop.
        return Math.floor((seed / 2 ** 31) * n);
      };
      const notified: Array<{ sessionId: string; loopId: string; commandId: string }> = [];
      for (let step = 0; step < 120; step++) {
        const sessionId = sessions[random(sessions.length)]!;
        const loops = loopsOf.get(sessionId)!;
        const loopId = loops[random(loops.length)]!;
        const action = random(10);
        const earlier = notified.filter((entry) => entry.loopId === loopId);
        if (action < 5 || earlier.length === 0) {
          const commandId = randomUUID();
          if (action === 9) await journalLifecycle(sessionId, loopId, outcomeRecord(sessionId, loopId, commandId, 'completed'));
          await store.writer.append(notificationDraft({ sessionId, loopId, idempotencyId: commandId }));
          notified.push({ sessionId, loopId, commandId });
        } else if (action < 8) {
          await store.writer.consume(sessionId, loopId, [earlier[random(earlier.length)]!.commandId], () => true);
        } else {
          const { commandId } = earlier[random(earlier.length)]!;
          await journalLifecycle(sessionId, loopId, outcomeRecord(sessionId, loopId, commandId, random(2) === 0 ? 'completed' : 'lost'));
        }
      }
      const last = Math.max(
        ...(await Promise.all(sessions.map(async (sessionId) => (await store.pages.page(sessionId, 0, 10_000)).at(-1)!.sequence))),
      );
      const range = (from: number) => {
        const sessionId = sessions[random(sessions.length)]!;
        const loops = loopsOf.get(sessionId)!;
        return { sessionId, loopId: random(2) === 0 ? null : loops[random(loops.length)]!, after: from + random(last - from + 1) };
      };
      return { random, last, range };
    }

    // One shared read of `ranges`, each range's share checked against its own read; the kinds seen and rows compared.
    async function checkSharedRead(
      ranges: Array<{ sessionId: string; loopId: string | null; after: number }>,
      limit: number,
      kinds: Set<string>,
    ) {
      const shared = await store.pages.loopStreamRangesPage(ranges, limit);
      expect(shared.last).toHaveLength(ranges.length);
      let compared = 0;
      for (const [index, { sessionId, loopId, after }] of ranges.entries()) {
        const own =
          loopId === null
            ? await store.pages.sessionLoopStreamPage(sessionId, after, 10_000)
            : await store.pages.loopStreamPage(sessionId, loopId, after, 10_000).then((page) => ({
                ...page,
                rows: page.rows.map((row) => ({ loopId, row })),
              }));
        const expected = own.rows.filter(({ row }) => row.sequence <= shared.last[index]!);
        const got = shared.rows.filter((entry) => entry.range === index).map(({ loopId: of, row }) => ({ loopId: of, row }));
        expect(got).toEqual(expected);
        expected.forEach(({ row }) => kinds.add(row.kind));
        compared += expected.length;
        expect(shared.last[index]).toBeGreaterThanOrEqual(after);
        if (storeDialectOf(store.dataSource).inProcess) {
          // One connection commits in sequence order: a read walks the journal's tail, and a
          // range moves to where the walk stopped, past other sessions' records (never past one
          // of its own that it did not give: the comparison above).
          if (!shared.more) expect(shared.last[index]).toBeGreaterThanOrEqual(own.last);
        } else {
          // Its own position: where its own read stops, never past it; the whole range when the read did not stop at its limit.
          expect(shared.last[index]).toBeLessThanOrEqual(own.last);
          if (!shared.more) expect(shared.last[index]).toBe(own.last);
        }
      }
      return { compared, shared };
    }

    it('give each range exactly its own read over the range it covered, whatever the other ranges', async () => {
      const { random, range } = await mixedJournal(46);
      let compared = 0;
      const kinds = new Set<string>();
      // 40 reads of 1 to 3 ranges, then reads of 70 ranges (more than one statement holds).
      for (let read = 0; read < 46; read++) {
        const ranges = Array.from({ length: read < 40 ? 1 + random(3) : 70 }, () => range(0));
        compared += (await checkSharedRead(ranges, 1 + random(40), kinds)).compared;
      }
      expect([...kinds].sort()).toEqual(['consumed', 'notification', 'outcome']);
      expect(compared).toBeGreaterThan(100);
    });

    // Streams that keep up sit near the journal's end: on SQLite their ranges are one walk of the
    // journal's tail, which must give each range what its own read gives, loop ranges included.
    it('give ranges near the end of the journal, loop ranges among them, their own reads, and all of them once read on to the end', async () => {
      const { random, last, range } = await mixedJournal(4_646);
      let compared = 0;
      const kinds = new Set<string>();
      for (let read = 0; read < 40; read++) {
        let ranges = Array.from({ length: 2 + random(15) }, () => range(Math.max(0, last - 80)));
        const limit = 1 + random(60);
        // Read on from each range's `last` until the read no longer stops at its limit.
        for (let pass = 0; pass < 200; pass++) {
          const { compared: rows, shared } = await checkSharedRead(ranges, limit, kinds);
          compared += rows;
          ranges = ranges.map((each, index) => ({ ...each, after: shared.last[index]! }));
          if (!shared.more) break;
        }
        // Read to the end: nothing of any range is left after its position.
        for (const { sessionId, loopId, after } of ranges) {
          const own =
            loopId === null
              ? await store.pages.sessionLoopStreamPage(sessionId, after, 10_000)
              : await store.pages.loopStreamPage(sessionId, loopId, after, 10_000);
          expect(own.rows).toEqual([]);
        }
      }
      expect([...kinds].sort()).toEqual(['consumed', 'notification', 'outcome']);
      expect(compared).toBeGreaterThan(200);
    });
  });

  describe('store dialect', () => {
    it("answers its probe, reads a payload's JSON text, and takes an append back", async () => {
      const dialect = storeDialectOf(store.dataSource);
      await expect(store.dataSource.query(dialect.probe)).resolves.toHaveLength(1);
      const sessionId = await openSession();
      const loopId = await openLoop(sessionId);
      const { record } = await store.writer.append(notificationDraft({ sessionId, loopId }));
      const [row] = (await store.writer.read((reader) =>
        managerOf(reader).query(
          `SELECT ${dialect.jsonText('payload', 'command_id')} AS command_id FROM pn_journal WHERE sequence = ${record.sequence}`,
        ),
      )) as Array<{ command_id: string }>;
      expect(row?.command_id).toBe(record.idempotencyId);
      await store.writer.write((tx) => dialect.takeBackAppend(managerOf(tx), record.sequence), sessionId);
      await expect(store.pages.page(sessionId, 0, 10)).resolves.toEqual([]);
      expect(dialect.shared).toBe(topologyOf(store.dataSource).shared);
    });
  });

  describe('the feed', () => {
    it("wakes a reader of a session at each commit of its records, not at another session's", async () => {
      const sessionId = await openSession();
      const loopId = await openLoop(sessionId);
      const otherSession = await openSession();
      const otherLoop = await openLoop(otherSession);
      const woken = firstValueFrom(store.feed.changes(sessionId).pipe(take(1), toArray()));
      await store.writer.append(notificationDraft({ sessionId: otherSession, loopId: otherLoop }));
      await store.writer.append(notificationDraft({ sessionId, loopId }));
      await expect(woken).resolves.toHaveLength(1);
    });

    it('names in one stream each session whose records commit', async () => {
      const [one, two] = [await openSession(), await openSession()];
      const loops = [await openLoop(one), await openLoop(two)];
      // On PostgreSQL a commit is named twice (this node's commit, then its NOTIFY): a hint may repeat.
      const named = new Set<string | null>();
      const both = firstValueFrom(
        store.feed.changedSessions().pipe(
          filter((changed) => named.add(changed).has(one) && named.has(two)),
          take(1),
        ),
      );
      await store.writer.append(notificationDraft({ sessionId: one, loopId: loops[0]! }));
      await store.writer.append(notificationDraft({ sessionId: two, loopId: loops[1]! }));
      await both;
      expect(named).toContain(one);
    });
  });

  // One node on SQLite: no leases, nothing to listen to. These are PostgreSQL's alone.
  (database === postgres ? describe : describe.skip)('leases and the notify listener (several nodes)', () => {
    it("refuses a write of a session this node does not hold, hands a released session on at the next epoch, and hears another node's commits", async () => {
      const sessionId = await openSession();
      const loopId = await openLoop(sessionId);
      const stranger = randomUUID();
      await store.writer.write((tx) => sessionRows.insert(tx, stranger, `hash-${stranger}`, new Date().toISOString()));
      await expect(store.writer.append(notificationDraft({ sessionId: stranger, loopId }))).rejects.toBeInstanceOf(OwnerUnavailableError);
      expect(store.listener.listening).toBe(true);

      // Another node on the same schema commits a record of this node's session: a NOTIFY wakes the reader here.
      const otherNode = new DataSource({
        ...dataSourceOptionsFromUrl(String((store.dataSource.options as { url: string }).url)),
        migrationsRun: false,
      });
      await otherNode.initialize();
      const leases = new SessionLeases(otherNode, { leaseTtlMs: 600_000 });
      await leases.onModuleInit();
      try {
        const writer = new JournalWriter(otherNode, leases);
        const hint = firstValueFrom(
          store.listener.hints$.pipe(
            filter((sessions) => sessions.split(',').includes(sessionId)),
            take(1),
          ),
        );
        // Held by a live node: not another's to take. Released (as a node that stops does): taken at the next epoch.
        const epoch = store.leases.heldEpoch(sessionId)!;
        await expect(leases.acquire(sessionId)).resolves.toBeUndefined();
        await store.leases.release();
        const next = (await leases.acquire(sessionId))!;
        expect(next).toBe(epoch + 1);
        leases.hold(sessionId, next);
        // The node-wide stream names it too (the hint's payload split once, issue 46).
        const named = firstValueFrom(
          store.feed.changedSessions().pipe(
            filter((changed) => changed === sessionId),
            take(1),
          ),
        );
        await writer.append(notificationDraft({ sessionId, loopId }));
        await expect(hint).resolves.toContain(sessionId);
        await expect(named).resolves.toBe(sessionId);
      } finally {
        await leases.onModuleDestroy();
        await otherNode.destroy();
      }
    });
  });
});
