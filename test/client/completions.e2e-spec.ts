import { NetworkError, ProcessNotificationsClient, type CompletionUpdate } from 'process-notifications-client';
import { randomUUID } from 'node:crypto';
import { tempDir } from '../durability/support/temp-dir.js';
import { ADMIN_TOKEN, createHttpTestApp, type HttpTestApp } from '../e2e/support/http-test-app.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { freePort, startServer } from '../supervisor/support/test-helpers.js';
import { collect, completion, exited, sessionOn } from './support/loop-side.js';

// completions() and waitForCompletion() (spec section 14) against the real server.

const summary = (items: readonly CompletionUpdate[]) =>
  items.map(({ notification, update }) => [notification.command_id, update, notification.outcome?.exit_code ?? null]);

describe('completions() against the real server', () => {
  it('yields what was pending, then live ones, each once across an identical retry and a dropped stream, then the outcome update', async () => {
    const dir = tempDir();
    let server: ServerProcess = await startServer(dir.file('db'));
    const port = Number(new URL(server.url).port);
    const stop = new AbortController();
    try {
      const { client, sessionId, loopId } = await sessionOn(server.url, SERVER_ADMIN_TOKEN);
      const pending = completion(sessionId, loopId);
      const consumedEarlier = completion(sessionId, loopId);
      await client.deliverCompletion(pending);
      // Journaled after the newest pending one and consumed before completions() starts: not new.
      await client.deliverCompletion(consumedEarlier);
      await client.consume(sessionId, loopId, consumedEarlier.command_id);

      const stream = collect(client.completions(sessionId, loopId, { signal: stop.signal }), summary, 15_000);
      expect(summary(await stream.until(1))).toEqual([[pending.command_id, 'new', null]]);
      expect(stream.items[0]!.notification).toEqual({ ...pending, sequence: 1, outcome: null });

      const live = completion(sessionId, loopId);
      const delivered = await client.deliverCompletion(live);
      await client.deliverCompletion(live); // the supervisor's identical retry: duplicate
      await stream.until(2);

      // The server dies under the open stream and comes back; the iterator resumes where it was.
      await server.stop('SIGKILL');
      server = await startServer(dir.file('db'), { port });
      const afterRestart = completion(sessionId, loopId);
      // Record first (as pn-supervise sends them): the notification comes with its outcome.
      await client.publishLifecycle(exited(afterRestart, 0));
      await client.deliverCompletion(afterRestart);
      await stream.until(3);
      // Notification first: the outcome follows as an update.
      await client.publishLifecycle(exited(pending, 3));
      await stream.until(4);
      // A later record for the same command is not its outcome: nothing more.
      await client.publishLifecycle(exited(pending, 9));
      await client.deliverCompletion(live);
      // The stream follows the journal in order: once a later notification has come, whatever
      // the two above would have yielded has come too (a fixed pause could end too soon).
      const later = completion(sessionId, loopId);
      await client.deliverCompletion(later);
      await stream.until(5);

      expect(summary(stream.items)).toEqual([
        [pending.command_id, 'new', null],
        [live.command_id, 'new', null],
        [afterRestart.command_id, 'new', 0],
        [pending.command_id, 'outcome', 3],
        [later.command_id, 'new', null],
      ]);
      expect(stream.items[1]!.notification.sequence).toBe(delivered.sequence);
      expect(stream.items[3]!.notification).toMatchObject({
        command_id: pending.command_id,
        sequence: 1,
        outcome: { kind: 'completed', has_exit_code: true, exit_code: 3, diagnostic: null, process_finished_at: '2026-01-01T00:00:02Z' },
      });
      stop.abort();
      await stream.done; // ends quietly
    } finally {
      stop.abort();
      await server.stop('SIGKILL');
      dir.remove();
    }
    // Two starts of the real server, which take long on a loaded machine.
  }, 120_000);

  describe('in process', () => {
    let server: HttpTestApp;
    beforeAll(async () => {
      server = await createHttpTestApp({ loopCapacity: 1 });
    });
    afterAll(() => server.close());

    it("yields a notification refused as inbox_full: it is the loop's work", async () => {
      const { client, sessionId, loopId } = await sessionOn(server.url, ADMIN_TOKEN, { maxAttempts: 1 });
      const held = completion(sessionId, loopId);
      await client.deliverCompletion(held);
      const stop = new AbortController();
      const stream = collect(client.completions(sessionId, loopId, { signal: stop.signal }), summary, 15_000);
      await stream.until(1);
      const refused = completion(sessionId, loopId);
      await expect(client.deliverCompletion(refused)).rejects.toMatchObject({ code: 'delivery_stopped', cause: 'inbox_full' });
      expect(summary(await stream.until(2))).toEqual([
        [held.command_id, 'new', null],
        [refused.command_id, 'new', null],
      ]);
      stop.abort();
      await stream.done;
    });

    it('resumes after afterSequence: only later notifications, and outcomes journaled after it', async () => {
      const { client, sessionId, loopId: wide } = await sessionOn(server.url, ADMIN_TOKEN);
      const first = completion(sessionId, wide);
      const { sequence } = await client.deliverCompletion(first);
      const stop = new AbortController();
      const stream = collect(client.completions(sessionId, wide, { signal: stop.signal, afterSequence: sequence }), summary, 15_000);
      // Nothing yet: the first is at the resume position. Its outcome, journaled later, comes.
      await client.publishLifecycle(exited(first, 1));
      expect(summary(await stream.until(1))).toEqual([[first.command_id, 'outcome', 1]]);
      stop.abort();
      await stream.done;
      await expect(client.completions(sessionId, wide, { afterSequence: -1 }).next()).rejects.toThrow(RangeError);
    });
  });
});

describe('waitForCompletion() against the real server', () => {
  let server: HttpTestApp;
  beforeAll(async () => {
    server = await createHttpTestApp();
  });
  afterAll(() => server.close());

  it('by command id: resolves once the notification and its outcome are known', async () => {
    const { client, sessionId, loopId } = await sessionOn(server.url, ADMIN_TOKEN);
    const run = completion(sessionId, loopId);
    const waiting = client.waitForCompletion(sessionId, loopId, { commandId: run.command_id.toUpperCase() }, { timeoutMs: 10_000 });
    await client.deliverCompletion(completion(sessionId, loopId)); // another run: not this one
    await client.deliverCompletion(run);
    await new Promise((settle) => setTimeout(settle, 200));
    await client.publishLifecycle(exited(run, 2));
    const { notification } = await waiting;
    expect(notification).toMatchObject({ command_id: run.command_id, outcome: { kind: 'completed', exit_code: 2 } });
  });

  it('by process handle, when the notification is already pending with its outcome', async () => {
    const { client, sessionId, loopId } = await sessionOn(server.url, ADMIN_TOKEN);
    const run = completion(sessionId, loopId);
    await client.publishLifecycle(exited(run, 0));
    await client.deliverCompletion(run);
    const { notification } = await client.waitForCompletion(sessionId, loopId, { processHandle: run.process_handle }, { timeoutMs: 5_000 });
    expect(notification).toMatchObject({ command_id: run.command_id, process_handle: run.process_handle, outcome: { exit_code: 0 } });
  });

  it('at timeoutMs resolves with outcome null when only the notification came', async () => {
    const { client, sessionId, loopId } = await sessionOn(server.url, ADMIN_TOKEN);
    const run = completion(sessionId, loopId);
    await client.deliverCompletion(run);
    const started = Date.now();
    const { notification } = await client.waitForCompletion(sessionId, loopId, { commandId: run.command_id }, { timeoutMs: 500 });
    expect(notification).toMatchObject({ command_id: run.command_id, outcome: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('rejects with a TimeoutError when no notification came, and with the reason when the signal aborts', async () => {
    const { client, sessionId, loopId } = await sessionOn(server.url, ADMIN_TOKEN);
    const started = Date.now();
    const error = await client
      .waitForCompletion(sessionId, loopId, { commandId: randomUUID() }, { timeoutMs: 400 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(5_000);

    const reason = new Error('the agent gave up');
    const aborting = new AbortController();
    const aborted = client.waitForCompletion(sessionId, loopId, { processHandle: 'never' }, { signal: aborting.signal });
    setTimeout(() => aborting.abort(reason), 100);
    await expect(aborted).rejects.toBe(reason);
  });
});

describe('failing fast, and deadlines', () => {
  it('health() against a closed port fails within seconds, without retrying; retry: true retries', async () => {
    const port = await freePort();
    const retries: unknown[] = [];
    const client = new ProcessNotificationsClient({ baseUrl: `http://127.0.0.1:${port}`, onRetry: (notice) => retries.push(notice) });
    const started = Date.now();
    for (const read of [
      () => client.health(),
      () => client.getSession(randomUUID()),
      () => client.getLoop(randomUUID(), randomUUID()),
      () => client.pendingNotifications(randomUUID(), randomUUID()),
      () => client.journal(randomUUID()),
    ]) {
      await expect(read()).rejects.toBeInstanceOf(NetworkError);
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(retries).toEqual([]);

    const patient = new ProcessNotificationsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { maxAttempts: 3, baseDelayMs: 10 },
      onRetry: (notice) => retries.push(notice),
    });
    await expect(patient.health({ retry: true })).rejects.toBeInstanceOf(NetworkError);
    expect(retries).toHaveLength(2);
  });

  it('waitForCompletion() against a closed port: a NetworkError naming the server after the retries, not a TimeoutError', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const retries: string[] = [];
    const client = new ProcessNotificationsClient({
      baseUrl,
      token: 't',
      retry: { baseDelayMs: 20, maxDelayMs: 50 },
      onRetry: (notice) => retries.push(notice.operation),
    });
    const error = await client
      .waitForCompletion(randomUUID(), randomUUID(), { commandId: randomUUID() }, { timeoutMs: 500 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).name).toBe('NetworkError');
    expect((error as Error).message).toContain(`cannot reach ${baseUrl} (ECONNREFUSED)`);
    expect((error as Error).message).toContain('waited 500 ms');
    // It kept retrying, as the policy says, until the timeout.
    expect(retries.length).toBeGreaterThan(1);
    expect(new Set(retries)).toEqual(new Set(['loopEvents']));

    // A policy that gives up sooner: its failure, at once.
    const brief = new ProcessNotificationsClient({ baseUrl, token: 't', retry: { maxAttempts: 2, baseDelayMs: 10 } });
    const started = Date.now();
    const given = await brief
      .waitForCompletion(randomUUID(), randomUUID(), { processHandle: 'p' }, { timeoutMs: 60_000 })
      .catch((e: unknown) => e);
    expect(given).toBeInstanceOf(NetworkError);
    expect((given as Error).message).toContain(baseUrl);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a delivery keeps retrying, bounded by deadlineMs', async () => {
    const port = await freePort();
    const attempts: number[] = [];
    const client = new ProcessNotificationsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: 't',
      retry: { baseDelayMs: 50, maxDelayMs: 100 },
      onRetry: (notice) => attempts.push(notice.attempt),
    });
    const started = Date.now();
    const error = await client.deliverCompletion(completion(randomUUID(), randomUUID()), { deadlineMs: 1_000 }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(NetworkError);
    expect(attempts.length).toBeGreaterThan(3);
    expect(elapsed).toBeGreaterThanOrEqual(800);
    // Without the deadline it would retry for ever; the margin is for a loaded machine.
    expect(elapsed).toBeLessThan(5_000);
  });
});
