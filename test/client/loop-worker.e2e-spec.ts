import {
  LoopWorker,
  ProcessNotificationsClient,
  type LoopWorkerError,
  type PendingNotification,
  type ProcessCompletionNotification,
} from 'process-notifications-client';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../durability/support/temp-dir.js';
import { HoldingProxy } from '../support/holding-proxy.js';
import { latch } from '../support/latch.js';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { eventually } from '../supervisor/support/test-helpers.js';
import { completion, exited, sessionOn } from './support/loop-side.js';

// LoopWorker (issue 46) against the real server, on a SQLite file and on PostgreSQL: what its handlers were given,
// what it consumed and what it left pending, read back from the server.

const FIXTURE = fileURLToPath(new URL('./fixtures/loop-worker.mjs', import.meta.url));

/** Delivers `count` notifications of the loop, each with its outcome (exit code `exitCode(i)`). */
async function deliverFinished(
  client: ProcessNotificationsClient,
  sessionId: string,
  loopId: string,
  count: number,
  exitCode: (i: number) => number = () => 0,
): Promise<ProcessCompletionNotification[]> {
  const delivered: ProcessCompletionNotification[] = [];
  for (let i = 0; i < count; i++) {
    const run = completion(sessionId, loopId);
    await client.publishLifecycle(exited(run, exitCode(i)));
    await client.deliverCompletion(run);
    delivered.push(run);
  }
  return delivered;
}

const pendingIds = async (client: ProcessNotificationsClient, sessionId: string, loopId: string): Promise<string[]> =>
  (await client.pendingNotifications(sessionId, loopId)).notifications.map((n) => n.command_id).sort();

const ids = (runs: readonly { command_id: string }[]): string[] => runs.map((r) => r.command_id).sort();

// On a SQLite file and on PostgreSQL (a fresh schema; skipped off CI when no server answers).
const databases: Array<[string, () => Promise<{ url: string; drop: () => Promise<void> } | undefined>]> = [
  [
    'a SQLite file',
    async () => {
      const data = tempDir();
      return { url: `sqlite:${data.file('db')}`, drop: async () => data.remove() };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const admin = await connectPostgresAdmin();
      if (!admin) return undefined;
      const schema = freshSchema();
      await admin.query(`CREATE SCHEMA ${schema.name}`);
      return {
        url: schema.databaseUrl,
        drop: async () => {
          await admin.query(`DROP SCHEMA ${schema.name} CASCADE`);
          await admin.destroy();
        },
      };
    },
  ],
];

describe.each(databases)('LoopWorker against the real server on %s', (_name, database) => {
  let server: ServerProcess;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const store = await database();
    if (!store) return;
    drop = store.drop;
    server = await ServerProcess.start({ PN_DATABASE_URL: store.url });
  }, 60_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await drop?.();
  });
  // Off CI without PostgreSQL, connectPostgresAdmin() said so and the tests below pass idle.
  const it = (name: string, fn: () => Promise<void>, timeout: number): void => test(name, () => (drop ? fn() : Promise.resolve()), timeout);

  it("consumes exactly the handlers' successes; a throwing handler's notification stays pending and is reported", async () => {
    const { client, sessionId, loopId } = await sessionOn(server.url, SERVER_ADMIN_TOKEN);
    const runs = await deliverFinished(client, sessionId, loopId, 12, (i) => (i % 3 === 0 ? 1 : 0));
    // One whose outcome comes after it: handed out once, with its outcome (waitForOutcome).
    const late = completion(sessionId, loopId);
    await client.deliverCompletion(late);
    const handled: PendingNotification[] = [];
    const errors: LoopWorkerError[] = [];
    const worker = new LoopWorker(
      client,
      sessionId,
      loopId,
      async (notification) => {
        handled.push(notification);
        await new Promise((turn) => setImmediate(turn));
        if (notification.outcome?.exit_code === 1) throw new Error(`exit code 1 of ${notification.command_id}`);
      },
      { concurrency: 3, waitForOutcome: true, onError: (error) => errors.push(error) },
    );
    const running = worker.run();
    await eventually(() => handled.length >= 12, '12 handled');
    expect(handled.map((n) => n.command_id)).not.toContain(late.command_id);
    await client.publishLifecycle(exited(late, 0));
    await eventually(() => handled.length >= 13, 'the late one handled');
    await worker.close();
    await running;

    // Each once, with its outcome; every failure reported, nothing else.
    expect(ids(handled)).toEqual(ids([...runs, late]));
    expect(handled.every((n) => n.outcome !== null)).toBe(true);
    const failing = runs.filter((_, i) => i % 3 === 0);
    expect(ids(errors.map((e) => e.notification))).toEqual(ids(failing));
    expect(errors.every((e) => e.code === 'handler_failed' && e.name === 'LoopWorkerError')).toBe(true);
    // What the server holds: exactly the failures are pending, the rest consumed once each.
    expect(await pendingIds(client, sessionId, loopId)).toEqual(ids(failing));
    const again = await client.consumeMany(sessionId, loopId, ids([...runs, late]));
    const consumedBefore = again.results.filter((r) => 'consumed' in r && !r.consumed).map((r) => r.command_id);
    expect(consumedBefore.sort()).toEqual(ids([...runs.filter((_, i) => i % 3 !== 0), late]));
  }, 60_000);

  it('by default hands a notification out at once, once: without a record, or before a record that comes later, with outcome null', async () => {
    const { client, sessionId, loopId } = await sessionOn(server.url, SERVER_ADMIN_TOKEN);
    const runs = await deliverFinished(client, sessionId, loopId, 3, () => 0);
    const bare = completion(sessionId, loopId);
    await client.deliverCompletion(bare);
    const late = completion(sessionId, loopId);
    const handled: PendingNotification[] = [];
    // The late one's handler holds until its record's outcome update has reached the worker.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = new LoopWorker(
      client,
      sessionId,
      loopId,
      async (notification) => {
        handled.push(notification);
        if (notification.command_id === late.command_id) await released;
      },
      { concurrency: 2, onError: (error) => handled.push(error.notification) },
    );
    const running = worker.run();
    await eventually(() => handled.length >= 4, '4 handled');
    await client.deliverCompletion(late);
    await eventually(() => handled.length >= 5, 'the late one handed out');
    // Its record while it is still pending: the stream gives its outcome update; then one more,
    // which the stream gives after that update.
    await client.publishLifecycle(exited(late, 0));
    const last = completion(sessionId, loopId);
    await client.deliverCompletion(last);
    await eventually(() => handled.length >= 6, 'the last one handed out');
    release();
    await worker.close();
    await running;
    expect(ids(handled)).toEqual(ids([...runs, bare, late, last]));
    // The records came first: their outcomes are there; the others have none, and are consumed all the same.
    expect(ids(handled.filter((n) => n.outcome === null))).toEqual(ids([bare, late, last]));
    expect(await pendingIds(client, sessionId, loopId)).toEqual([]);
  }, 60_000);

  it('runs at most `concurrency` handlers at once, and reaches it', async () => {
    const { client, sessionId, loopId } = await sessionOn(server.url, SERVER_ADMIN_TOKEN);
    const runs = await deliverFinished(client, sessionId, loopId, 10);
    const releases: Array<() => void> = [];
    let active = 0;
    let most = 0;
    let started = 0;
    const worker = new LoopWorker(
      client,
      sessionId,
      loopId,
      async () => {
        started++;
        most = Math.max(most, ++active);
        const [released, release] = latch();
        releases.push(release);
        await released;
        active--;
      },
      { concurrency: 3 },
    );
    const running = worker.run();
    // Release one handler at a time, each only once the worker filled every slot it may.
    for (let finished = 0; finished < runs.length; finished++) {
      await eventually(() => started >= Math.min(runs.length, finished + 3), `${finished + 3} started`);
      expect(started).toBe(Math.min(runs.length, finished + 3));
      releases[finished]!();
    }
    await worker.close();
    await running;
    expect(most).toBe(3);
    expect(started).toBe(10);
    expect(await pendingIds(client, sessionId, loopId)).toEqual([]);
  }, 60_000);

  it("hands out the next notification while the previous one's consume has not committed", async () => {
    const { client: direct, token, sessionId, loopId } = await sessionOn(server.url, SERVER_ADMIN_TOKEN);
    const [first, second] = await deliverFinished(direct, sessionId, loopId, 2);
    const proxy = await HoldingProxy.start(Number(new URL(server.url).port));
    try {
      const client = new ProcessNotificationsClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, token });
      // The first consume request is held on its way for a while.
      const held = proxy.holdNext('/consume', 3_000);
      const pendingWhenSecondRan: string[][] = [];
      const worker = new LoopWorker(client, sessionId, loopId, async (notification) => {
        if (notification.command_id === second!.command_id) {
          await held;
          pendingWhenSecondRan.push(await pendingIds(direct, sessionId, loopId));
        }
      });
      const running = worker.run();
      await eventually(() => pendingWhenSecondRan.length === 1, 'the second handled');
      // The first was handled and its consume sent, not committed: the second did not wait for it.
      expect(pendingWhenSecondRan[0]).toContain(first!.command_id);
      await worker.close();
      await running;
      // close() waited for both consumes, the held one included.
      expect(await pendingIds(direct, sessionId, loopId)).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('close() takes nothing more and waits for the handlers running and their consumes', async () => {
    const { client, sessionId, loopId } = await sessionOn(server.url, SERVER_ADMIN_TOKEN);
    const runs = await deliverFinished(client, sessionId, loopId, 5);
    const [released, release] = latch();
    const started: string[] = [];
    const stop = new AbortController();
    const worker = new LoopWorker(
      client,
      sessionId,
      loopId,
      async (notification, { signal }) => {
        started.push(notification.command_id);
        await released;
        expect(signal.aborted).toBe(true); // the handler could see that the worker is stopping
      },
      { concurrency: 2, signal: stop.signal },
    );
    const running = worker.run();
    await eventually(() => started.length === 2, 'two started');
    stop.abort();
    let closed = false;
    const closing = worker.close().then(() => (closed = true));
    // Both handlers are still running: nothing is consumed and close() has not resolved.
    expect(await pendingIds(client, sessionId, loopId)).toEqual(ids(runs));
    expect(closed).toBe(false);
    release();
    await closing;
    await running;
    // Resolved after the two consumes committed; the three never started stay pending.
    expect(started).toHaveLength(2);
    expect(await pendingIds(client, sessionId, loopId)).toEqual(ids(runs).filter((id) => !started.includes(id)));
  }, 60_000);

  it('SIGKILL between a handler returning and its consume committing: the next run is given it again, none lost', async () => {
    const { client, token, sessionId, loopId } = await sessionOn(server.url, SERVER_ADMIN_TOKEN);
    const runs = await deliverFinished(client, sessionId, loopId, 3);
    const proxy = await HoldingProxy.start(Number(new URL(server.url).port));
    // The first consume is held past the kill, and dropped with the proxy: it never reaches the server.
    const held = proxy.holdNext('/consume', 10_000);
    const first = workerProcess(`http://127.0.0.1:${proxy.port}`, token, sessionId, loopId);
    await held;
    first.child.kill('SIGKILL');
    await once(first.child, 'close');
    await proxy.close();
    const handledFirst = first.handled();
    expect(handledFirst.length).toBeGreaterThanOrEqual(1);
    // What the dead worker had handled is still pending: it was told nothing was consumed.
    const pendingAfterKill = await pendingIds(client, sessionId, loopId);
    expect(pendingAfterKill).toEqual(ids(runs));

    const second = workerProcess(server.url, token, sessionId, loopId);
    await eventually(async () => (await pendingIds(client, sessionId, loopId)).length === 0, 'all consumed');
    second.child.kill('SIGTERM');
    await once(second.child, 'close');
    // Given again (at least once), each once by this run, and none lost.
    expect([...second.handled()].sort()).toEqual(ids(runs));
    expect(second.lines).toContainEqual({ closed: true });
  }, 120_000);
});

/** The fixture's worker in a child process, and the command ids its handler was given. */
function workerProcess(baseUrl: string, token: string, sessionId: string, loopId: string) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, PN_SERVER_URL: baseUrl, PN_TOKEN: token, PN_SESSION_ID: sessionId, PN_LOOP_ID: loopId },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  const handled = (): string[] => lines.filter((l) => typeof l.handled === 'string').map((l) => l.handled as string);
  return { child, lines, handled };
}
