import { jest } from '@jest/globals';
import { Logger, type LoggerService } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Subscription } from 'rxjs';
import { DataSource, type QueryRunner } from 'typeorm';
import { connectPostgresAdmin, freshSchema } from '../../../../test/support/postgres.js';
import { dataSourceOptionsFromUrl } from '../persistence/connection/data-source-options.js';
import { JournalWriter } from '../persistence/journal/journal-writer.service.js';
import { SessionLeases } from '../persistence/leases/session-leases.service.js';
import type { JournalDraft } from '../persistence/journal/journal-draft.interface.js';
import { JournalFeed } from './journal-feed.service.js';
import { JournalNotifyListener } from '../persistence/journal/journal-notify-listener.js';
import { notificationDraft } from '../../../../test/support/notification-fixture.js';
import { topologyOf } from '../persistence/connection/topology.provider.js';

// The journal feed with the real writer and journal: on SQLite (this process's commits only) and
// on PostgreSQL in a schema of this file's own (NOTIFY hints from any node, polling while the
// LISTEN connection is down). Only setInterval is faked (the feed's one-second poll and its
// LISTEN ping), so a test can tell "polls now" from "does not poll"; everything else runs on
// real timers and real connections.
const FAKE_ONLY_INTERVALS: Parameters<typeof jest.useFakeTimers>[0] = {
  doNotFake: [
    'Date',
    'hrtime',
    'nextTick',
    'performance',
    'queueMicrotask',
    'requestAnimationFrame',
    'cancelAnimationFrame',
    'requestIdleCallback',
    'cancelIdleCallback',
    'setImmediate',
    'clearImmediate',
    'setTimeout',
    'clearTimeout',
  ],
};

const LOOP = randomUUID();

const draft = (sessionId: string): JournalDraft => notificationDraft({ sessionId, loopId: LOOP });

/** Counts a reader's wake-ups, and lets a test await the n-th one (at most 5 s of real time). */
function reader(feed: JournalFeed, sessionId: string) {
  let count = 0;
  const waiters: Array<{ n: number; wake: () => void }> = [];
  const subscription: Subscription = feed.changes(sessionId).subscribe(() => {
    count += 1;
    for (const waiter of waiters.filter((w) => w.n <= count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.wake();
    }
  });
  return {
    subscription,
    get count() {
      return count;
    },
    woken(n: number): Promise<void> {
      if (count >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`woken ${count} times, not ${n}, within 5 s`)), 5_000);
        waiters.push({
          n,
          wake: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

/**
 * A TCP proxy in front of PostgreSQL whose `cut()` is a silent network fault: the server's side
 * of every open connection is closed, the client's side stays open and hears nothing until it
 * sends something, which is then answered with a reset (as a restarted server's host does).
 */
async function faultyProxy(target: URL) {
  const open: Array<{ client: Socket; server: Socket }> = [];
  const proxy: Server = createServer((client) => {
    const server = connect(Number(target.port || 5432), target.hostname);
    client.on('error', () => undefined);
    server.on('error', () => undefined);
    client.pipe(server);
    server.pipe(client);
    open.push({ client, server });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as AddressInfo).port,
    cut(): void {
      for (const { client, server } of open.splice(0)) {
        client.unpipe(server);
        server.unpipe(client);
        server.destroy();
        client.once('data', () => client.resetAndDestroy());
        client.resume();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, server } of open.splice(0)) {
          client.destroy();
          server.destroy();
        }
        proxy.close(() => resolve());
      }),
  };
}

/** Waits (at most 5 s of real time) until a condition on the database holds. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

afterEach(() => {
  jest.useRealTimers();
  Logger.overrideLogger(false);
});

describe('JournalFeed on SQLite (one process: no LISTEN, no polling)', () => {
  let dataSource: DataSource;
  let writer: JournalWriter;
  let feed: JournalFeed;

  beforeEach(async () => {
    dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
    const leases = new SessionLeases(dataSource);
    writer = new JournalWriter(dataSource, leases);
    feed = new JournalFeed(new JournalNotifyListener(dataSource), writer, topologyOf(dataSource), leases);
  });
  afterEach(async () => {
    feed.onModuleDestroy();
    if (dataSource.isInitialized) await dataSource.destroy();
  });

  it("wakes a reader once per commit of its session's records, never for another session's, and never by a timer", async () => {
    jest.useFakeTimers(FAKE_ONLY_INTERVALS);
    await feed.onModuleInit();
    // Nothing to listen to or poll on a database only this process writes.
    expect(jest.getTimerCount()).toBe(0);
    const session = randomUUID();
    const ours = reader(feed, session);
    await writer.append(draft(randomUUID()));
    await writer.append(draft(session));
    await ours.woken(1);
    jest.advanceTimersByTime(10_000);
    await writer.append(draft(randomUUID()));
    expect(ours.count).toBe(1);
    ours.subscription.unsubscribe();
  });
});

const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

describeOnPostgres('JournalFeed on PostgreSQL (LISTEN/NOTIFY hints, polling while not listening)', () => {
  const { name: schema, databaseUrl } = freshSchema();
  const started: Array<() => Promise<void>> = [];
  let warnings: string[];
  let warned: Array<() => void>;

  // A node: its own pool (two connections unless told), writer, leases and feed, and an
  // application name of its own, by which its connections are found in pg_stat_activity.
  const startNode = async (extra: Record<string, unknown> = {}, poolSize = 2, url = databaseUrl) => {
    const application = `pn-feed-spec-${randomBytes(4).toString('hex')}`;
    const dataSource = await new DataSource({
      ...dataSourceOptionsFromUrl(url),
      poolSize,
      extra: { application_name: application, ...extra },
    } as never).initialize();
    const leases = new SessionLeases(dataSource, { leaseTtlMs: 600_000 });
    const writer = new JournalWriter(dataSource, leases);
    const feed = new JournalFeed(new JournalNotifyListener(dataSource), writer, topologyOf(dataSource), leases);
    started.push(async () => {
      feed.onModuleDestroy();
      await leases.release();
      if (dataSource.isInitialized) await dataSource.destroy();
    });
    const listeners = async (): Promise<number[]> =>
      (
        (await admin!.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query = 'LISTEN pn_journal'`, [
          application,
        ])) as Array<{ pid: number }>
      ).map((row) => row.pid);
    const connections = async (): Promise<number> =>
      Number(
        (
          (await admin!.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1`, [application])) as [{ n: string }]
        )[0].n,
      );
    const own = async (sessionId: string) => leases.hold(sessionId, (await leases.acquire(sessionId))!);
    return { dataSource, leases, writer, feed, listeners, connections, own };
  };
  const notify = (payload: string) => admin!.query('SELECT pg_notify($1, $2)', ['pn_journal', payload]);
  // The next warning logged, within 5 s of real time.
  const nextWarning = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no warning within 5 s')), 5_000);
      warned.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA "${schema}"`);
    // Runs the migrations once.
    await (await new DataSource(dataSourceOptionsFromUrl(databaseUrl)).initialize()).destroy();
  });
  beforeEach(() => {
    warnings = [];
    warned = [];
    const capture: LoggerService = {
      log: () => undefined,
      warn: (message: string) => {
        warnings.push(message);
        for (const wake of warned.splice(0)) wake();
      },
      error: () => undefined,
    };
    Logger.overrideLogger(capture);
  });
  afterEach(async () => {
    for (const stop of started.splice(0)) await stop();
  });
  afterAll(async () => {
    await admin!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin!.destroy();
  });

  it('listens on one connection and wakes a reader for a hint naming its session or any session, not for other sessions', async () => {
    jest.useFakeTimers(FAKE_ONLY_INTERVALS);
    const node = await startNode();
    await node.feed.onModuleInit();
    expect(await node.listeners()).toHaveLength(1);
    const session = randomUUID();
    const ours = reader(node.feed, session);
    // The node-wide stream (issue 46): each session a hint names, null for any session.
    const named: Array<string | null> = [];
    const all = node.feed.changedSessions().subscribe((changed) => named.push(changed));
    // Hints come in the order they were sent: once a later one woke the reader, the earlier
    // ones were heard too.
    await notify(randomUUID());
    await notify(`${randomUUID()},${session.slice(0, 35)}`);
    await notify(`${randomUUID()},${session}`);
    await ours.woken(1);
    await notify(`${session},${randomUUID()}`);
    await ours.woken(2);
    await notify('*');
    await ours.woken(3);
    // While it listens, no poll.
    jest.advanceTimersByTime(3_000);
    await notify(randomUUID());
    await notify(session);
    await ours.woken(4);
    expect(ours.count).toBe(4);
    ours.subscription.unsubscribe();
    expect(named.filter((changed) => changed === session || changed === null)).toEqual([session, session, null, session]);
    expect(named).toHaveLength(10);
    all.unsubscribe();
  });

  it('polls every second while its LISTEN connection is down, listens again on a new connection and wakes every reader', async () => {
    jest.useFakeTimers(FAKE_ONLY_INTERVALS);
    const node = await startNode();
    await node.feed.onModuleInit();
    const [first] = await node.listeners();
    const session = randomUUID();
    const ours = reader(node.feed, session);
    const named: Array<string | null> = [];
    const all = node.feed.changedSessions().subscribe((changed) => named.push(changed));

    const lost = nextWarning();
    await admin!.query('SELECT pg_terminate_backend($1)', [first]);
    await lost;
    expect(warnings).toEqual([
      'journal LISTEN connection lost, polling until it is back: terminating connection due to administrator command',
    ]);
    // Down: a poll every second (the reconnect waits a second of real time).
    jest.advanceTimersByTime(1_000);
    expect(ours.count).toBe(1);
    jest.advanceTimersByTime(1_000);
    expect(ours.count).toBe(2);
    // The node-wide stream polls too: any session.
    expect(named).toEqual([null, null]);
    // Back: every reader re-reads once, whatever it missed.
    await ours.woken(3);
    expect(named).toEqual([null, null, null]);
    all.unsubscribe();
    const [second] = await node.listeners();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    // The dead connection was dropped, not kept out of the pool: a write still finds one.
    await node.own(session);
    await node.writer.append(draft(session));
    // Woken by the commit once: its own hint, which names this node, wakes nobody (it came
    // before the next hint, on the same connection, so the count is exact).
    await ours.woken(4);
    await notify(session);
    await ours.woken(5);
    // Time for a hint on its way (this node's own, were it not skipped) to arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ours.count).toBe(5);
    // Listening again: no poll, and the ping finds the connection alive.
    jest.advanceTimersByTime(5_000);
    expect(warnings).toHaveLength(1);
    await notify(session);
    await ours.woken(6);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ours.count).toBe(6);
    ours.subscription.unsubscribe();
  });

  it('finds a LISTEN connection that died silently by pinging it every 5 s, then polls and listens again', async () => {
    jest.useFakeTimers(FAKE_ONLY_INTERVALS);
    const proxy = await faultyProxy(new URL(databaseUrl));
    started.push(() => proxy.close());
    const viaProxy = new URL(databaseUrl);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const node = await startNode({}, 2, viaProxy.toString());
    await node.feed.onModuleInit();
    const session = randomUUID();
    const ours = reader(node.feed, session);

    proxy.cut();
    const lost = nextWarning();
    // Nothing tells the client, until the ping (every 5 s) meets the reset.
    jest.advanceTimersByTime(4_999);
    expect(warnings).toEqual([]);
    jest.advanceTimersByTime(1);
    await lost;
    expect(warnings).toEqual([expect.stringMatching(/^journal LISTEN connection lost, polling until it is back: .*ECONNRESET/)]);
    expect(ours.count).toBe(0);
    jest.advanceTimersByTime(1_000);
    expect(ours.count).toBe(1);
    // Listening again, on one new connection through the (working) proxy: the failed ping and
    // the connection's error are one loss, one reconnect.
    await ours.woken(2);
    await notify(session);
    await ours.woken(3);
    expect(ours.count).toBe(3);
    expect(await node.listeners()).toHaveLength(1);
    ours.subscription.unsubscribe();
  });

  it('retries every second while it cannot get a connection to LISTEN on, and listens once one is free', async () => {
    jest.useFakeTimers(FAKE_ONLY_INTERVALS);
    // One connection, held by the test: each of the feed's attempts to connect times out.
    const node = await startNode({ connectionTimeoutMillis: 200 }, 1);
    const pool = (node.dataSource.driver as unknown as { master: { waitingCount: number } }).master;
    const held: QueryRunner = node.dataSource.createQueryRunner();
    await held.connect();
    await node.feed.onModuleInit();
    expect(await node.listeners()).toEqual([]);
    const session = randomUUID();
    const ours = reader(node.feed, session);
    jest.advanceTimersByTime(1_000);
    expect(ours.count).toBe(1);
    // The first retry, a second later, waits for the connection and fails too.
    await until(() => Promise.resolve(pool.waitingCount === 1));
    await until(() => Promise.resolve(pool.waitingCount === 0));
    await held.release();
    // The next retry listens and wakes every reader.
    await ours.woken(2);
    expect(await node.listeners()).toHaveLength(1);
    await notify(session);
    await ours.woken(3);
    // It never warned: it had not been listening.
    expect(warnings).toEqual([]);
    ours.subscription.unsubscribe();
  });

  it('stopped while waiting for a connection to LISTEN on, it closes that connection once it comes, so the pool can end', async () => {
    const node = await startNode({}, 1);
    const pool = (node.dataSource.driver as unknown as { master: { waitingCount: number; totalCount: number } }).master;
    const held: QueryRunner = node.dataSource.createQueryRunner();
    await held.connect();
    const init = node.feed.onModuleInit();
    await until(() => Promise.resolve(pool.waitingCount === 1));
    node.feed.onModuleDestroy();
    await held.release();
    await init;
    // The connection the feed waited for was closed, not kept: nothing holds the pool open.
    await until(() => Promise.resolve(pool.totalCount === 0));
    expect(await node.listeners()).toEqual([]);
    await node.dataSource.destroy();
  });

  it('closes its LISTEN connection when the module stops, and a hint then wakes nobody', async () => {
    const node = await startNode();
    await node.feed.onModuleInit();
    expect(await node.listeners()).toHaveLength(1);
    const connectionsBefore = await node.connections();
    const session = randomUUID();
    const ours = reader(node.feed, session);
    node.feed.onModuleDestroy();
    // The connection is closed, not given back to the pool.
    await until(async () => (await node.connections()) === connectionsBefore - 1);
    expect(await node.listeners()).toEqual([]);
    await notify(session);
    // A commit of this node's still wakes its readers (the hint of that commit does not count).
    await node.own(session);
    await node.writer.append(draft(session));
    await ours.woken(1);
    expect(ours.count).toBe(1);
    ours.subscription.unsubscribe();
  });
});
