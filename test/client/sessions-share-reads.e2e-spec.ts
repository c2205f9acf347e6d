import { getDataSourceToken } from '@nestjs/typeorm';
import { ProcessNotificationsClient, type LoopEvent } from 'process-notifications-client';
import type { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../../libs/process-notifications/src/constants.js';
import { JournalWriter } from '../../libs/process-notifications/src/persistence/journal/journal-writer.service.js';
import { JournalPages } from '../../libs/process-notifications/src/persistence/pages/journal-pages.service.js';
import { SessionLeases } from '../../libs/process-notifications/src/persistence/leases/session-leases.service.js';
import type { DataSync, JournalDurability } from '../../libs/process-notifications/src/persistence/durability/journal-durability.js';
import { tempDir } from '../durability/support/temp-dir.js';
import { ADMIN_TOKEN, createHttpTestApp, notification, type HttpTestApp } from '../e2e/support/http-test-app.js';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { collect } from './support/loop-side.js';

// Issue 46: sixteen agents are sixteen sessions with one loop each. Against the real server on
// both databases, with sixteen loop streams open over HTTP, the store's loop stream reads (one
// statement each) are counted per commit: sixteen sessions must cost what one session with
// sixteen loops costs, not a read per session. And the agents' awaited consumes, from sixteen
// sessions at once, must share the writer's transactions (and a file's syncs, and on PostgreSQL
// the transaction's lease check), not take one each.

const LOOPS = 16;
const ROUNDS = 10;

interface Database {
  readonly name: string;
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

const admin = await connectPostgresAdmin();
afterAll(async () => {
  if (admin?.isInitialized) await admin.destroy();
});
const databases: Database[] = [
  {
    name: 'a SQLite file',
    create: () => {
      const dir = tempDir();
      return Promise.resolve({ url: `sqlite:${dir.file('journal.db')}`, drop: () => Promise.resolve(dir.remove()) });
    },
  },
  ...(admin
    ? [
        {
          name: 'PostgreSQL',
          create: async () => {
            const schema = freshSchema();
            await admin.query(`CREATE SCHEMA ${schema.name}`);
            return { url: schema.databaseUrl, drop: async () => void (await admin.query(`DROP SCHEMA ${schema.name} CASCADE`)) };
          },
        },
      ]
    : []),
];

type Layout = 'one session with sixteen loops' | 'sixteen sessions with one loop each';

describe.each(databases)('sixteen sessions against the real server on $name', (database) => {
  let t: HttpTestApp;
  let drop: () => Promise<void>;
  // The store's loop stream reads, each one statement, counted at the journal's pages.
  let reads = 0;
  // The statements of the writer's transactions (its connections), counted at the data source.
  let statements = 0;
  beforeAll(async () => {
    const created = await database.create();
    drop = created.drop;
    t = await createHttpTestApp({ databaseUrl: created.url, maxStreamsPerSession: 4 * LOOPS });
    const writer = t.app.get(JournalPages, { strict: false }) as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of ['loopStreamPage', 'sessionLoopStreamPage', 'loopStreamRangesPage']) {
      const read = writer[name]!.bind(writer);
      writer[name] = (...args: unknown[]) => (reads++, read(...args));
    }
    const dataSource = t.app.get<DataSource>(getDataSourceToken(PN_CONNECTION), { strict: false });
    const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
    dataSource.createQueryRunner = (mode) => {
      const runner = createQueryRunner(mode);
      if (mode === 'master') {
        const query = runner.query.bind(runner);
        runner.query = ((...args: Parameters<typeof query>) => (statements++, query(...args))) as typeof runner.query;
      }
      return runner;
    };
  });
  afterAll(async () => {
    await t?.close();
    await drop?.();
  });

  const adminClient = () => new ProcessNotificationsClient({ baseUrl: t.url, token: ADMIN_TOKEN });

  // Sixteen loops laid out as `layout`, each with a client of its session's token.
  async function openLoops(layout: Layout) {
    const opened: Array<{ sessionId: string; loopId: string; client: ProcessNotificationsClient }> = [];
    let session: { session_id: string; token: string } | undefined;
    for (let i = 0; i < LOOPS; i++) {
      if (!session || layout === 'sixteen sessions with one loop each') session = await adminClient().createSession();
      const client = adminClient().withToken(session.token);
      opened.push({ sessionId: session.session_id, loopId: (await client.openLoop(session.session_id)).loop_id, client });
    }
    return opened;
  }

  // One notification per loop, sent at once: the writer commits them together.
  const round = (loops: ReadonlyArray<{ sessionId: string; loopId: string }>) =>
    Promise.all(loops.map(({ sessionId, loopId }) => t.service.notifyProcessCompletion(sessionId, notification(sessionId, loopId))));

  async function readsPerCommit(layout: Layout) {
    const loops = await openLoops(layout);
    const stop = new AbortController();
    const streams = loops.map(({ client, sessionId, loopId }) =>
      collect(client.loopEvents(sessionId, loopId, { signal: stop.signal }), (items: readonly LoopEvent[]) => items.map((item) => item.id)),
    );
    // Every stream open and caught up before counting.
    await round(loops);
    await Promise.all(streams.map((stream) => stream.until(1)));
    let commits = 0;
    const counting = t.service.journalCommits$.subscribe(() => commits++);
    reads = 0;
    for (let n = 1; n <= ROUNDS; n++) {
      await round(loops);
      await Promise.all(streams.map((stream) => stream.until(1 + n)));
    }
    counting.unsubscribe();
    const counted = { reads, commits };
    stop.abort();
    await Promise.all(streams.map((stream) => stream.done.catch(() => undefined)));
    // Each stream got exactly its loop's notifications, once each.
    for (const [index, stream] of streams.entries()) {
      expect(stream.items).toHaveLength(1 + ROUNDS);
      for (const item of stream.items) expect(item.type === 'notification' && item.notification.loop_id).toBe(loops[index]!.loopId);
    }
    return { ...counted, loops };
  }

  it('reads the journal as often per commit with sixteen sessions as with one', async () => {
    const one = await readsPerCommit('one session with sixteen loops');
    const sixteen = await readsPerCommit('sixteen sessions with one loop each');
    // One read per commit (a second only when a commit lands during a read): on PostgreSQL the
    // NOTIFY of this node's own commit no longer reads again; a reader per session read once per
    // session per commit.
    const perCommit = ({ reads: counted, commits }: { reads: number; commits: number }) =>
      counted <= commits + 2 ? 'one read per commit' : `${counted} reads for ${commits} commits`;
    expect([perCommit(one), perCommit(sixteen)]).toEqual(['one read per commit', 'one read per commit']);
    expect(sixteen.reads).toBeLessThanOrEqual(one.reads + ROUNDS);
  });

  // Each loop's agent consumes its notifications one by one, each consume awaited over HTTP, all
  // sixteen at once: what the writer's transactions cost, counted at the store.
  async function consumePhase(layout: Layout) {
    const loops = await openLoops(layout);
    const pending = await Promise.all(
      loops.map(async ({ sessionId, loopId }) => {
        const ids: string[] = [];
        for (let n = 0; n < ROUNDS; n++) {
          const sent = notification(sessionId, loopId);
          await t.service.notifyProcessCompletion(sessionId, sent);
          ids.push(String(sent.command_id));
        }
        return ids;
      }),
    );
    const durability = (t.app.get(JournalWriter, { strict: false }) as unknown as { durability?: JournalDurability }).durability;
    let syncs = 0;
    const sync = durability as unknown as { datasync: DataSync } | undefined;
    const real = sync?.datasync;
    if (sync && real) {
      // The WAL's syncs (the directory's is synced once, not per commit).
      sync.datasync = (path, directory) => {
        if (!directory) syncs++;
        return real(path, directory);
      };
    }
    // On PostgreSQL each transaction checks the leases of the sessions it writes (one statement per call).
    const leases = t.app.get(SessionLeases, { strict: false }) as unknown as { fence: (...args: unknown[]) => Promise<unknown> };
    const fence = leases.fence.bind(leases);
    let fences = 0;
    leases.fence = (...args: unknown[]) => (fences++, fence(...args));
    let commits = 0;
    let jobs = 0;
    const counting = t.service.journalCommits$.subscribe(({ size }) => ((commits += 1), (jobs += size)));
    statements = 0;
    try {
      const answers = await Promise.all(
        loops.map(async ({ client, sessionId, loopId }, index) => {
          const consumed: boolean[] = [];
          for (const commandId of pending[index]!) consumed.push((await client.consume(sessionId, loopId, commandId)).consumed);
          return consumed;
        }),
      );
      expect(answers.flat()).toEqual(Array.from({ length: LOOPS * ROUNDS }, () => true));
    } finally {
      counting.unsubscribe();
      if (sync && real) sync.datasync = real;
      leases.fence = fence;
    }
    expect(jobs).toBe(LOOPS * ROUNDS);
    // The sessions' counts committed with them: each loop, all consumed, starts at its session's last record.
    for (const { sessionId, loopId } of loops) {
      const last = (await t.service.readJournal(sessionId, 0, 1_000)).at(-1)!.sequence;
      await expect(t.service.loopEventsStart(sessionId, loopId)).resolves.toBe(last);
    }
    return { commits, syncs, fences, statements, durable: sync !== undefined };
  }

  it("commits sixteen sessions' awaited consumes together, in shared transactions and syncs, at one session's cost", async () => {
    const one = await consumePhase('one session with sixteen loops');
    const sixteen = await consumePhase('sixteen sessions with one loop each');
    // One transaction per consume would be 160: concurrent consumes of different sessions share one.
    expect(sixteen.commits).toBeLessThanOrEqual((LOOPS * ROUNDS) / 2);
    if (sixteen.durable) expect(sixteen.syncs).toBe(sixteen.commits);
    // PostgreSQL: one lease check per transaction for all its sessions, not one per session.
    if (t.service.sharesDatabase) expect(sixteen.fences).toBeLessThanOrEqual(sixteen.commits);
    else expect(sixteen.fences).toBe(0);
    // Every statement of the writer's transactions (each a round trip on PostgreSQL): as many
    // per transaction with sixteen sessions as with one (a statement per session touched, for
    // its lease or its last sequence, made about 30 more). On SQLite the per-session statements
    // left run in this process, without a round trip.
    if (t.service.sharesDatabase) {
      const perCommit = ({ statements: counted, commits }: { statements: number; commits: number }) => counted / commits;
      expect(perCommit(sixteen)).toBeLessThanOrEqual(perCommit(one) + 2);
    }
  });
});
