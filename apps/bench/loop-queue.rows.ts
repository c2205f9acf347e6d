import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LoopWorker,
  ProcessNotificationsClient,
  type PendingNotification,
  type ProcessCompletionNotification,
} from 'process-notifications-client';
import { DataSource } from 'typeorm';
import { markdownTable } from './markdown-table.js';
import { processCpuMs, startServerProcess, type ServerProcess } from './server-process.js';

// Issue 37's scenario, as a user choosing between this and a job queue measures it: 4,000
// completions from 64 concurrent senders through the typed client to 16 loops of one session, each
// loop following completions() and consuming each notification as it is given (consume() calls,
// which the client coalesces), on the real server (a child process) with every commit durable.
// Each server first runs the scenario once unmeasured (BENCH_LOOP_WARMUP completions, on a
// session of its own), as a server that has been up a while has: a cold start measures V8
// compiling the server's code (a third to a half of the first thousands' CPU), not the server.
// 8,000: on a SQLite file, rounds of 4,000 in a row on one server sent 1,800, 2,730, 3,440,
// 3,390, 3,320 and 3,670/s; steady from the 8,000th completion on (docs/benchmarks.md).
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NOTIFICATIONS = Number(process.env.BENCH_LOOP_ITEMS ?? 4_000);
const WARMUP = Number(process.env.BENCH_LOOP_WARMUP ?? 8_000);
const SENDERS = 64;
const LOOPS = 16;

/** What one run of the scenario measured. */
export interface LoopQueueResult {
  readonly sent: number;
  /** Deliveries answered per second, through the client, over the sending phase. */
  readonly sendsPerSecond: number;
  readonly ackP50Ms: number;
  /** From just before the delivery call to the loop's completions() yielding it. */
  readonly givenP50Ms: number;
  readonly givenP99Ms: number;
  /** Notifications consumed per second, from the first send to the last consume answered. */
  readonly drainPerSecond: number;
  /** Sent but never given to their loop; given more than once; consumes that failed. */
  readonly lost: number;
  readonly twice: number;
  readonly errors: number;
  /**
   * The server process's CPU time (all its threads; not the database's on PostgreSQL) per
   * completion over the measured run, in µs; undefined where it cannot be read.
   */
  readonly serverCpuUs?: number;
}

/** One database the scenario runs on. */
export interface LoopQueueRow {
  readonly id: string;
  readonly database: string;
  run(): Promise<LoopQueueResult>;
}

// Waits for `done`, at most `ms`; the timer goes with it (a pending one kept the bench process
// alive for its whole length after the last row).
async function within(done: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

/** What a scenario's run counted, as its result: one way for both scenarios. */
function measured(run: {
  notifications: number;
  sendSeconds: number;
  ackMs: number[];
  givenMs: number[];
  drainSeconds: number;
  consumed: number;
  sentAt: ReadonlyMap<string, number>;
  givenCount: ReadonlyMap<string, number>;
  errors: number;
}): LoopQueueResult {
  run.ackMs.sort((a, b) => a - b);
  run.givenMs.sort((a, b) => a - b);
  return {
    sent: run.notifications,
    sendsPerSecond: run.notifications / run.sendSeconds,
    ackP50Ms: percentile(run.ackMs, 0.5),
    givenP50Ms: percentile(run.givenMs, 0.5),
    givenP99Ms: percentile(run.givenMs, 0.99),
    drainPerSecond: run.consumed / run.drainSeconds,
    lost: [...run.sentAt.keys()].filter((id) => !run.givenCount.has(id)).length,
    twice: [...run.givenCount.values()].filter((count) => count > 1).length,
    errors: run.errors,
  };
}

function startServer(databaseUrl: string, adminToken: string): Promise<ServerProcess> {
  return startServerProcess(
    { PN_DATABASE_URL: databaseUrl, PN_ADMIN_TOKEN: adminToken },
    { nodeArgs: ['--no-allocation-site-pretenuring'] },
  );
}

async function scenario(baseUrl: string, adminToken: string, notifications: number): Promise<LoopQueueResult> {
  const admin = new ProcessNotificationsClient({ baseUrl, token: adminToken });
  const session = await admin.createSession();
  const client = admin.withToken(session.token);
  const sessionId = session.session_id;
  const loops = await Promise.all(Array.from({ length: LOOPS }, () => client.openLoop(sessionId)));
  const sentAt = new Map<string, number>();
  const givenMs: number[] = [];
  const givenCount = new Map<string, number>();
  let consumed = 0;
  let errors = 0;
  let lastConsumedAt = 0;
  let allConsumed!: () => void;
  const drained = new Promise<void>((resolve) => (allConsumed = resolve));
  const stop = new AbortController();
  const consumers = loops.map(async ({ loop_id: loopId }) => {
    for await (const { notification, update } of client.completions(sessionId, loopId, { signal: stop.signal })) {
      if (update !== 'new') continue;
      const at = performance.now();
      const started = sentAt.get(notification.command_id);
      if (started !== undefined) givenMs.push(at - started);
      givenCount.set(notification.command_id, (givenCount.get(notification.command_id) ?? 0) + 1);
      client.consume(sessionId, loopId, notification.command_id).then(
        () => {
          consumed++;
          lastConsumedAt = performance.now();
          if (consumed === notifications) allConsumed();
        },
        () => errors++,
      );
    }
  });
  // The streams are open (each has answered) before the clock starts.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const ackMs: number[] = [];
  let next = 0;
  const first = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (next < notifications) {
        const i = next++;
        const notification: ProcessCompletionNotification = {
          command_id: randomUUID(),
          session_id: sessionId,
          loop_id: loops[i % LOOPS]!.loop_id,
          process_handle: `job-${i}`,
          state: 'exited',
          reason: 'exited',
        };
        const started = performance.now();
        sentAt.set(notification.command_id, started);
        await client.deliverCompletion(notification);
        ackMs.push(performance.now() - started);
      }
    }),
  );
  const sendSeconds = (performance.now() - first) / 1000;
  await within(drained, 60_000);
  stop.abort();
  await Promise.all(consumers);
  return measured({
    notifications,
    sendSeconds,
    ackMs,
    givenMs,
    drainSeconds: (lastConsumedAt - first) / 1000,
    consumed,
    sentAt,
    givenCount,
    errors,
  });
}

/** How each loop of issue 46's scenario follows its completions, as docs/agent-loop.md shows it. */
type Follower = 'worker' | 'awaited';

/**
 * Where issue 46's sixteen loops are: one session each (sixteen agents, the issue's scenario), or
 * all in one session (the same loops, senders and followers: what sixteen sessions must not cost
 * more than).
 */
type Layout = 'agents' | 'one session';

/**
 * What each completion is on the wire: its notification (`deliverCompletion`, which coalesces the
 * calls of a session issued together into batch requests), or the same calls each in a request of
 * its own (`coalesceDeliveries: false`: one request per completion, as the issue measured it and
 * as a job queue's producer sends one job), or as pn-supervise sends it, its outcome record and
 * then the notification (two requests; the notification so carries its exit code).
 */
type Sends = 'notification' | 'supervisor' | 'notification alone';

/**
 * Issue 46's scenario: sixteen agents, each a session with one loop, each loop following its
 * completions as docs/agent-loop.md shows ("Following every completion of a loop"): with the
 * page's `LoopWorker` (concurrency 16), or with its by-hand `completions()` loop that awaits each
 * consume. Each completion is sent as `sends` says, by 64 senders. Drained when every consume
 * answered (for the workers: when close(), which waits for the consumes, resolved).
 */
async function agentsScenario(
  baseUrl: string,
  adminToken: string,
  notifications: number,
  follower: Follower,
  layout: Layout,
  sends: Sends,
): Promise<LoopQueueResult> {
  const admin = new ProcessNotificationsClient({ baseUrl, token: adminToken, coalesceDeliveries: sends !== 'notification alone' });
  const shared = layout === 'one session' ? await admin.createSession() : undefined;
  const agents = await Promise.all(
    Array.from({ length: LOOPS }, async () => {
      // Each agent its own client, as sixteen agents (or sixteen loops of one program) have.
      const session = shared ?? (await admin.createSession());
      const client = admin.withToken(session.token);
      const loop = await client.openLoop(session.session_id);
      return { client, sessionId: session.session_id, loopId: loop.loop_id };
    }),
  );
  const sentAt = new Map<string, number>();
  const givenMs: number[] = [];
  const givenCount = new Map<string, number>();
  let given = 0;
  let consumed = 0;
  let errors = 0;
  let allGiven!: () => void;
  const handedOut = new Promise<void>((resolve) => (allGiven = resolve));
  const take = (notification: PendingNotification): void => {
    const started = sentAt.get(notification.command_id);
    if (started !== undefined) givenMs.push(performance.now() - started);
    givenCount.set(notification.command_id, (givenCount.get(notification.command_id) ?? 0) + 1);
    if (++given === notifications) allGiven();
  };
  const stop = new AbortController();
  const workers: LoopWorker[] = [];
  const followers = agents.map(async ({ client, sessionId, loopId }) => {
    if (follower === 'worker') {
      // docs/agent-loop.md's worker, its handler replaced by the measurement.
      const worker = new LoopWorker(client, sessionId, loopId, async (notification) => take(notification), {
        concurrency: 16,
        onError: () => errors++,
      });
      workers.push(worker);
      await worker.run();
      return;
    }
    // docs/agent-loop.md's by-hand loop, its console.log replaced by the measurement.
    try {
      for await (const { notification, update } of client.completions(sessionId, loopId, { signal: stop.signal })) {
        if (update !== 'new') continue; // an outcome that came after its notification, given already
        take(notification);
        await client.consume(sessionId, loopId, notification.command_id);
        consumed++;
      }
    } catch {
      errors++;
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const ackMs: number[] = [];
  let next = 0;
  const first = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (next < notifications) {
        const i = next++;
        const { client, sessionId, loopId } = agents[i % LOOPS]!;
        const commandId = randomUUID();
        const started = performance.now();
        sentAt.set(commandId, started);
        if (sends === 'supervisor')
          await client.publishLifecycle({
            event_id: randomUUID(),
            kind: 'completed',
            session_id: sessionId,
            loop_id: loopId,
            process_handle: `job-${i}`,
            origin_execution_id: randomUUID(),
            state: 'exited',
            reason: 'exited',
            process_created_at: '2026-01-01T00:00:00Z',
            process_started_at: '2026-01-01T00:00:01Z',
            process_finished_at: '2026-01-01T00:00:02Z',
            has_exit_code: true,
            exit_code: 0,
            command_id: commandId,
          });
        await client.deliverCompletion({
          command_id: commandId,
          session_id: sessionId,
          loop_id: loopId,
          process_handle: `job-${i}`,
          state: 'exited',
          reason: 'exited',
        });
        ackMs.push(performance.now() - started);
      }
    }),
  );
  const sendSeconds = (performance.now() - first) / 1000;
  await within(handedOut, 120_000);
  let drainedAt: number;
  if (follower === 'worker') {
    // close() resolves once every handler's consume answered.
    await Promise.all(workers.map((worker) => worker.close()));
    drainedAt = performance.now();
    consumed = given - errors;
  } else {
    const until = Date.now() + 120_000;
    while (consumed < given && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 1));
    drainedAt = performance.now();
    stop.abort();
  }
  await Promise.all(followers);
  return measured({
    notifications,
    sendSeconds,
    ackMs,
    givenMs,
    drainSeconds: (drainedAt - first) / 1000,
    consumed,
    sentAt,
    givenCount,
    errors,
  });
}

// The measured run, after one unmeasured run on the same server (see WARMUP), with the server's
// CPU time per completion over it.
async function warmedScenario(server: ServerProcess, adminToken: string, agents?: AgentsOf): Promise<LoopQueueResult> {
  const run = (count: number) =>
    agents
      ? agentsScenario(server.url, adminToken, count, agents.follower, agents.layout ?? 'agents', agents.sends ?? 'notification')
      : scenario(server.url, adminToken, count);
  if (WARMUP > 0) await run(WARMUP);
  const cpuBefore = processCpuMs(server.child.pid);
  const result = await run(NOTIFICATIONS);
  const cpuAfter = processCpuMs(server.child.pid);
  if (cpuBefore === undefined || cpuAfter === undefined) return result;
  return { ...result, serverCpuUs: ((cpuAfter - cpuBefore) * 1000) / NOTIFICATIONS };
}

/** Issue 46's scenario's choices: its followers, where its loops are, what each completion is. */
interface AgentsOf {
  readonly follower: Follower;
  readonly layout?: Layout;
  readonly sends?: Sends;
}

// The scenario on a fresh SQLite file.
async function onSqliteFile(adminToken: string, agents?: AgentsOf): Promise<LoopQueueResult> {
  const dir = mkdtempSync(join(tmpdir(), 'pn-loop-queue-'));
  const server = await startServer(`sqlite:${join(dir, 'journal.db')}`, adminToken);
  try {
    return await warmedScenario(server, adminToken, agents);
  } finally {
    server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onPostgres(adminToken: string, agents?: AgentsOf): Promise<LoopQueueResult> {
  const admin = await new DataSource({ type: 'postgres', url: POSTGRES_URL, poolSize: 1 }).initialize();
  const schema = `pn_bench_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const server = await startServer(url, adminToken);
  try {
    return await warmedScenario(server, adminToken, agents);
  } finally {
    server.child.kill('SIGKILL');
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.destroy();
  }
}

/**
 * Issue 37's scenario on a SQLite file and on PostgreSQL (a fresh schema, dropped after), and
 * issue 46's (sixteen agents as docs/agent-loop.md writes them: the worker, and the by-hand
 * loop) on both.
 */
export function loopQueueRows(): LoopQueueRow[] {
  const adminToken = randomBytes(24).toString('hex');
  return [
    {
      id: 'loop-queue/file',
      database: 'SQLite file',
      run: () => onSqliteFile(adminToken),
    },
    {
      id: 'loop-queue/agents-worker/file',
      database: 'SQLite file',
      run: () => onSqliteFile(adminToken, { follower: 'worker' }),
    },
    {
      id: 'loop-queue/agents-awaited/file',
      database: 'SQLite file',
      run: () => onSqliteFile(adminToken, { follower: 'awaited' }),
    },
    {
      id: 'loop-queue/agents-one-session-worker/file',
      database: 'SQLite file',
      run: () => onSqliteFile(adminToken, { follower: 'worker', layout: 'one session' }),
    },
    {
      id: 'loop-queue/agents-worker-alone/file',
      database: 'SQLite file',
      run: () => onSqliteFile(adminToken, { follower: 'worker', sends: 'notification alone' }),
    },
    {
      id: 'loop-queue/agents-worker-supervised/file',
      database: 'SQLite file',
      run: () => onSqliteFile(adminToken, { follower: 'worker', sends: 'supervisor' }),
    },
    {
      id: 'loop-queue/postgres',
      database: 'PostgreSQL',
      run: () => onPostgres(adminToken),
    },
    {
      id: 'loop-queue/agents-worker/postgres',
      database: 'PostgreSQL',
      run: () => onPostgres(adminToken, { follower: 'worker' }),
    },
    {
      id: 'loop-queue/agents-awaited/postgres',
      database: 'PostgreSQL',
      run: () => onPostgres(adminToken, { follower: 'awaited' }),
    },
    {
      id: 'loop-queue/agents-one-session-worker/postgres',
      database: 'PostgreSQL',
      run: () => onPostgres(adminToken, { follower: 'worker', layout: 'one session' }),
    },
    {
      id: 'loop-queue/agents-worker-supervised/postgres',
      database: 'PostgreSQL',
      run: () => onPostgres(adminToken, { follower: 'worker', sends: 'supervisor' }),
    },
  ];
}

/** The scenario's table: one line per database. */
export function loopQueueTable(results: ReadonlyArray<{ row: LoopQueueRow; result: LoopQueueResult }>): string {
  const ms = (value: number) => value.toFixed(0);
  return markdownTable(
    [
      'row',
      'database',
      'sends/s through the client',
      'ack p50 ms',
      'send → loop p50 ms',
      'p99 ms',
      'drain /s',
      'server CPU µs per completion',
      'lost',
      'twice',
      'errors',
    ],
    results.map(({ row, result }) => [
      row.id,
      row.database,
      result.sendsPerSecond.toFixed(0),
      ms(result.ackP50Ms),
      ms(result.givenP50Ms),
      ms(result.givenP99Ms),
      result.drainPerSecond.toFixed(0),
      result.serverCpuUs === undefined ? 'n/a' : result.serverCpuUs.toFixed(0),
      String(result.lost),
      String(result.twice),
      String(result.errors),
    ]),
  );
}
