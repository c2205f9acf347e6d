import {
  NetworkError,
  ProblemError,
  ProcessNotificationsClient,
  type LifecycleRecord,
  type ProcessCompletionNotification,
  type RetryNotice,
  type SessionEvent,
} from 'process-notifications-client';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { ADMIN_TOKEN, createHttpTestApp, type HttpTestApp } from '../e2e/support/http-test-app.js';
import { tempDir } from '../durability/support/temp-dir.js';
import { SERVER_ADMIN_TOKEN as PROCESS_ADMIN_TOKEN, type ServerProcess } from '../support/server-process.js';
import { startServer } from './support/test-helpers.js';

// The client against the real server (same module and setup as main.ts, in-memory SQLite).

function completion(sessionId: string, loopId: string): ProcessCompletionNotification {
  return {
    command_id: randomUUID(),
    session_id: sessionId,
    loop_id: loopId,
    process_handle: 'make-test',
    state: 'exited',
    reason: 'exited',
  };
}

async function sessionClient(server: HttpTestApp, options: Partial<ConstructorParameters<typeof ProcessNotificationsClient>[0]> = {}) {
  const admin = new ProcessNotificationsClient({ baseUrl: server.url, token: ADMIN_TOKEN, ...options });
  const session = await admin.createSession();
  const client = admin.withToken(session.token);
  const loop = await client.openLoop(session.session_id);
  return { client, sessionId: session.session_id, loopId: loop.loop_id };
}

async function take(events: AsyncGenerator<SessionEvent>, count: number): Promise<SessionEvent[]> {
  const taken: SessionEvent[] = [];
  for await (const event of events) {
    taken.push(event);
    if (taken.length === count) break;
  }
  return taken;
}

describe('ProcessNotificationsClient against the real server', () => {
  let server: HttpTestApp;
  beforeAll(async () => {
    server = await createHttpTestApp();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('speaks every route of the API with the wire shapes of the contract', async () => {
    const { client, sessionId, loopId } = await sessionClient(server);
    expect(await client.health()).toEqual({ status: 'ok' });
    expect(await client.getSession(sessionId)).toEqual({
      session_id: sessionId,
      state: 'open',
      closed_at: null,
      loops: [{ loop_id: loopId, engine: 'native', state: 'running', capacity: 64, pending: 0 }],
    });

    const record: LifecycleRecord = {
      event_id: randomUUID(),
      kind: 'started',
      session_id: sessionId,
      loop_id: loopId,
      process_handle: 'make-test',
      origin_execution_id: randomUUID(),
      state: 'running',
      process_created_at: '2026-01-01T00:00:00Z',
      process_started_at: '2026-01-01T00:00:01Z',
    };
    const published = await client.publishLifecycle(record);
    expect(published).toEqual({ event_id: record.event_id, sequence: expect.any(Number), appended: true });
    expect(await client.publishLifecycle(record)).toEqual({ ...published, appended: false });

    const notification = completion(sessionId, loopId);
    const delivered = await client.deliverCompletion(notification);
    expect(delivered).toEqual({
      disposition: 'accepted',
      command_id: notification.command_id,
      sequence: expect.any(Number),
      appended: true,
    });
    expect(await client.deliverCompletion(notification)).toEqual({ ...delivered, disposition: 'duplicate', appended: false });
    expect(await client.pendingNotifications(sessionId, loopId)).toEqual({
      notifications: [{ ...notification, sequence: delivered.sequence, outcome: null }],
    });
    expect(await client.getLoop(sessionId, loopId)).toMatchObject({ loop_id: loopId, pending: 1 });

    const consumed = await client.consume(sessionId, loopId, notification.command_id);
    expect(consumed).toEqual({ consumed: true, sequence: expect.any(Number) });
    expect(await client.consume(sessionId, loopId, notification.command_id)).toEqual({ consumed: false, sequence: consumed.sequence });

    const page = await client.journal(sessionId, { after: published.sequence - 1, limit: 2 });
    expect(page.records.map((r) => [r.sequence, r.kind, r.idempotency_id])).toEqual([
      [published.sequence, 'started', record.event_id],
      [delivered.sequence, 'process_notification', notification.command_id],
    ]);
    expect(page.next_after).toBe(delivered.sequence);

    expect(await client.stopLoop(sessionId, loopId)).toMatchObject({ loop_id: loopId, state: 'stopped' });
  });

  it('throws typed problems, and does not retry what the contract calls final', async () => {
    const retries: RetryNotice[] = [];
    const { client, sessionId, loopId } = await sessionClient(server, { onRetry: (notice) => retries.push(notice) });

    const invalid = await client
      .deliverCompletion({ ...completion(sessionId, loopId), process_handle: 'has space' })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ProblemError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_field', field: 'process_handle' });

    const first = completion(sessionId, loopId);
    const original = await client.deliverCompletion(first);
    const collision = await client.deliverCompletion({ ...first, state: 'failed', reason: 'failed' }).catch((e: unknown) => e);
    expect(collision).toMatchObject({ status: 422, code: 'idempotency_collision', disposition: 'collision', sequence: original.sequence });

    const consumedNever = await client.consume(sessionId, loopId, randomUUID()).catch((e: unknown) => e);
    expect(consumedNever).toMatchObject({ status: 404, code: 'not_found' });

    await client.stopLoop(sessionId, loopId);
    const stopped = await client.deliverCompletion(completion(sessionId, loopId)).catch((e: unknown) => e);
    expect(stopped).toMatchObject({ status: 503, code: 'delivery_stopped', cause: 'loop_stopped', disposition: 'stopped' });

    const unauthorized = await client
      .withToken('not-a-token')
      .getSession(sessionId)
      .catch((e: unknown) => e);
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(retries).toEqual([]);
  });

  it('retries a full loop with the identical body, honouring Retry-After, until the loop has room', async () => {
    const small = await createHttpTestApp({ loopCapacity: 1 });
    try {
      const retries: RetryNotice[] = [];
      const waits: number[] = [];
      // The wait is where the loop makes room: the next attempt must then be accepted.
      let consumeFirst: () => Promise<unknown> = async () => undefined;
      const { client, sessionId, loopId } = await sessionClient(small, {
        onRetry: (notice) => retries.push(notice),
        retry: {
          maxAttempts: 5,
          sleep: async (ms) => {
            waits.push(ms);
            await consumeFirst();
          },
        },
      });
      const first = completion(sessionId, loopId);
      await client.deliverCompletion(first);
      consumeFirst = () => client.consume(sessionId, loopId, first.command_id);

      const second = completion(sessionId, loopId);
      const delivery = await client.deliverCompletion(second);
      expect(delivery).toMatchObject({ disposition: 'accepted', command_id: second.command_id, appended: false });
      expect(retries).toHaveLength(1);
      const [notice] = retries;
      expect(notice!.error).toMatchObject({ code: 'delivery_stopped', cause: 'inbox_full' });
      const retryAfterMs = (notice!.error as ProblemError).retryAfterMs;
      expect(retryAfterMs).toBeGreaterThan(0);
      expect(waits).toEqual([notice!.delayMs]);
      expect(notice!.delayMs).toBeGreaterThanOrEqual(retryAfterMs!);

      // One journal record for the command id, although it was sent twice.
      const journal = await client.journal(sessionId, { limit: 1000 });
      expect(journal.records.filter((r) => r.idempotency_id === second.command_id)).toHaveLength(1);
    } finally {
      await small.close();
    }
  });

  it('retries network errors with backoff and gives up only after maxAttempts', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const waits: number[] = [];
    const retries: RetryNotice[] = [];
    const client = new ProcessNotificationsClient({
      baseUrl: `http://127.0.0.1:${closedPort}`,
      token: 't',
      retry: { maxAttempts: 4, baseDelayMs: 100, random: () => 0.5, sleep: async (ms) => void waits.push(ms) },
      onRetry: (notice) => retries.push(notice),
    });
    // A read fails fast unless asked to retry.
    const error = await client.health({ retry: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(waits).toEqual([50, 100, 200]);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
  });

  it('streams journal records as events and resumes after Last-Event-ID', async () => {
    const { client, sessionId, loopId } = await sessionClient(server);
    const sent = [completion(sessionId, loopId), completion(sessionId, loopId), completion(sessionId, loopId)];
    for (const notification of sent.slice(0, 2)) await client.deliverCompletion(notification);

    const firstTwo = await take(client.events(sessionId), 2);
    expect(firstTwo.map((e) => e.record.idempotency_id)).toEqual([sent[0]!.command_id, sent[1]!.command_id]);
    expect(firstTwo.map((e) => e.id)).toEqual(firstTwo.map((e) => String(e.record.sequence)));

    // Resumed after the first: the second again, then the third once it commits.
    const resumed = client.events(sessionId, { lastEventId: firstTwo[0]!.id });
    const next = take(resumed, 2);
    await client.deliverCompletion(sent[2]!);
    expect((await next).map((e) => e.record.idempotency_id)).toEqual([sent[1]!.command_id, sent[2]!.command_id]);
  });

  it('reconnects the event stream after a server restart and resumes after the last event', async () => {
    const dir = tempDir();
    let server: ServerProcess = await startServer(dir.file('db'));
    const port = Number(new URL(server.url).port);
    try {
      const admin = new ProcessNotificationsClient({
        baseUrl: server.url,
        token: PROCESS_ADMIN_TOKEN,
        retry: { baseDelayMs: 50, maxDelayMs: 200 },
      });
      const session = await admin.createSession();
      const client = admin.withToken(session.token);
      const loop = await client.openLoop(session.session_id);
      const before = completion(session.session_id, loop.loop_id);
      await client.deliverCompletion(before);

      const events = client.events(session.session_id);
      expect((await events.next()).value).toMatchObject({ record: { idempotency_id: before.command_id } });
      // The server dies under the open stream; the iterator keeps trying until it is back.
      await server.stop('SIGKILL');
      const next = events.next();
      server = await startServer(dir.file('db'), { port });
      const after = completion(session.session_id, loop.loop_id);
      await client.deliverCompletion(after);
      expect((await next).value).toMatchObject({ record: { idempotency_id: after.command_id } });
      await events.return(undefined);
    } finally {
      await server.stop('SIGKILL');
      dir.remove();
    }
    // Two starts of the real server, which take long on a loaded machine.
  }, 120_000);
});
