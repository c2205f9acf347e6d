import { ProcessNotificationsClient, SseDecoder, type LoopEvent } from 'process-notifications-client';
import { tempDir } from '../durability/support/temp-dir.js';
import { ADMIN_TOKEN, createHttpTestApp, type HttpTestApp } from '../e2e/support/http-test-app.js';
import { inFreshSchema } from '../support/postgres.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { startServer } from '../supervisor/support/test-helpers.js';
import { collect, completion, exited, sessionOn } from './support/loop-side.js';

// The loop's own stream, GET /v1/sessions/:sid/loops/:lid/events (issue 37), against the real server.

const summary = (events: readonly LoopEvent[]) =>
  events.map((event) =>
    event.type === 'consumed'
      ? [event.id, 'consumed', event.consumed.command_id]
      : [event.id, event.type, event.notification.command_id, event.notification.outcome?.exit_code ?? null],
  );

describe('the loop stream against the real server', () => {
  it('starts at the unconsumed work, follows live, and resumes without loss or repeat after a drop and a restart', async () => {
    const dir = tempDir();
    let server: ServerProcess = await startServer(dir.file('db'));
    const port = Number(new URL(server.url).port);
    const stop = new AbortController();
    try {
      const { client, sessionId, loopId } = await sessionOn(server.url, SERVER_ADMIN_TOKEN);
      const other = await client.openLoop(sessionId);
      const consumedBefore = completion(sessionId, loopId);
      const pending = completion(sessionId, loopId);
      await client.deliverCompletion(consumedBefore);
      const { sequence: pendingSequence } = await client.deliverCompletion(pending);
      await client.consume(sessionId, loopId, consumedBefore.command_id);
      await client.deliverCompletion(completion(sessionId, other.loop_id)); // another loop: never on this stream

      const stream = collect(client.loopEvents(sessionId, loopId, { signal: stop.signal }), summary);
      await stream.until(1);
      expect(stream.items[0]).toEqual({
        id: pendingSequence,
        type: 'notification',
        notification: { ...pending, sequence: pendingSequence, outcome: null },
      });

      // Live: a notification, its outcome after it, one whose outcome came first, a consume.
      const live = completion(sessionId, loopId);
      await client.deliverCompletion(live);
      await client.publishLifecycle(exited(live, 4));
      const recordFirst = completion(sessionId, loopId);
      await client.publishLifecycle(exited(recordFirst, 0));
      await client.deliverCompletion(recordFirst);
      await client.consume(sessionId, loopId, pending.command_id);
      await client.deliverCompletion(completion(sessionId, other.loop_id));
      await client.publishLifecycle(exited(live, 9)); // a later record for the same command: not its outcome
      await stream.until(6);

      // The server dies under the open stream and comes back; the iterator resumes where it was.
      await server.stop('SIGKILL');
      server = await startServer(dir.file('db'), { port });
      const afterRestart = completion(sessionId, loopId);
      await client.deliverCompletion(afterRestart);
      await stream.until(7);
      stop.abort();
      await stream.done;

      expect(summary(stream.items)).toEqual([
        [pendingSequence, 'notification', pending.command_id, null],
        // Consumed after the stream's start (the oldest unconsumed): its consumption is on it,
        // although the notification, consumed before the stream read it, is not.
        [expect.any(Number), 'consumed', consumedBefore.command_id],
        [expect.any(Number), 'notification', live.command_id, null],
        [expect.any(Number), 'outcome', live.command_id, 4],
        [expect.any(Number), 'notification', recordFirst.command_id, 0],
        [expect.any(Number), 'consumed', pending.command_id],
        [expect.any(Number), 'notification', afterRestart.command_id, null],
      ]);
      const ids = stream.items.map((event) => event.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);

      // Resuming after any event gives exactly what came after it, from the journal.
      const again = new AbortController();
      const resumed = collect(client.loopEvents(sessionId, loopId, { after: ids[1]!, signal: again.signal }), summary);
      await resumed.until(5);
      again.abort();
      await resumed.done;
      expect(summary(resumed.items)).toEqual(summary(stream.items.slice(2)));
    } finally {
      stop.abort();
      await server.stop('SIGKILL');
      dir.remove();
    }
  }, 120_000);

  describe('in process', () => {
    let server: HttpTestApp;
    beforeAll(async () => {
      server = await createHttpTestApp({ loopCapacity: 10_000 });
    });
    afterAll(() => server.close());

    it('answers 401 without a token, 403 to another session, 404 for an unknown loop, 400 for a bad position', async () => {
      const mine = await sessionOn(server.url, ADMIN_TOKEN);
      const theirs = await sessionOn(server.url, ADMIN_TOKEN);
      const path = `/v1/sessions/${mine.sessionId}/loops/${mine.loopId}/events`;
      await server.http.get(path).expect(401);
      await server.http.get(path).set('Authorization', `Bearer ${theirs.token}`).expect(403);
      // Another session's loop through my session's path is not mine: not found.
      await server.http
        .get(`/v1/sessions/${mine.sessionId}/loops/${theirs.loopId}/events`)
        .set('Authorization', `Bearer ${mine.token}`)
        .expect(404)
        .expect((response) => expect(response.body).toMatchObject({ code: 'loop_not_found' }));
      await server.http.get(`${path}?after=-1`).set('Authorization', `Bearer ${mine.token}`).expect(400);
      await server.http.get(path).set('Authorization', `Bearer ${mine.token}`).set('Last-Event-ID', 'x').expect(400);
    });

    it('is isolated: two sessions and two loops each see only their own notifications, as SSE with event names', async () => {
      const a = await sessionOn(server.url, ADMIN_TOKEN);
      const b = await sessionOn(server.url, ADMIN_TOKEN);
      const a2 = await a.client.openLoop(a.sessionId);
      const sent = [completion(a.sessionId, a.loopId), completion(a.sessionId, a2.loop_id), completion(b.sessionId, b.loopId)];
      for (const notification of sent) await (notification.session_id === a.sessionId ? a : b).client.deliverCompletion(notification);
      await a.client.publishLifecycle(exited(sent[1]!, 1)); // an outcome of the other loop's notification
      const mark = completion(a.sessionId, a.loopId);
      await a.client.deliverCompletion(mark);

      const controller = new AbortController();
      const response = await fetch(`${server.url}/v1/sessions/${a.sessionId}/loops/${a.loopId}/events`, {
        headers: { Authorization: `Bearer ${a.token}`, Accept: 'text/event-stream' },
        signal: controller.signal,
      });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const decoder = new SseDecoder();
      const reader = response.body!.getReader();
      const seen: Array<{ id?: string; event: string; command_id: string }> = [];
      while (!seen.some((event) => event.command_id === mark.command_id)) {
        const { value } = await reader.read();
        for (const event of decoder.push(new TextDecoder().decode(value))) {
          seen.push({ id: event.id, event: event.event, command_id: (JSON.parse(event.data) as { command_id: string }).command_id });
        }
      }
      controller.abort();
      expect(seen.map(({ event, command_id }) => [event, command_id])).toEqual([
        ['notification', sent[0]!.command_id],
        ['notification', mark.command_id],
      ]);
    });

    it('completions() over a 10,000-notification backlog makes a constant number of requests, not one per item', async () => {
      const { client, sessionId, loopId, token } = await sessionOn(server.url, ADMIN_TOKEN);
      let requests = 0;
      const counted = new ProcessNotificationsClient({
        baseUrl: server.url,
        token,
        fetch: (input, init) => {
          requests++;
          return fetch(input, init);
        },
      });
      const stop = new AbortController();
      const items: string[] = [];
      const backlog = 10_000;
      // Started first, so that every notification reaches it live, one after another.
      const reading = (async () => {
        for await (const { notification, update } of counted.completions(sessionId, loopId, { signal: stop.signal })) {
          if (update === 'new') items.push(notification.command_id);
          if (items.length === backlog) stop.abort();
        }
      })();
      const sent = Array.from({ length: backlog }, () => completion(sessionId, loopId));
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < sent.length) await client.deliverCompletion(sent[next++]!);
        }),
      );
      await reading;
      // Each once (the order is the journal's, which concurrent senders decide).
      expect(new Set(items).size).toBe(backlog);
      expect([...items].sort()).toEqual(sent.map((notification) => notification.command_id).sort());
      expect(requests).toBeLessThanOrEqual(2);
    }, 120_000);
  });
});

describe('the loop stream on several nodes (PostgreSQL)', () => {
  it('is served by a node that does not own the session, from the database, and a consume of what it gave succeeds', async () => {
    await inFreshSchema(async (databaseUrl) => {
      const owner = await ServerProcess.start({ PN_DATABASE_URL: databaseUrl });
      const other = await ServerProcess.start({ PN_DATABASE_URL: databaseUrl });
      const stop = new AbortController();
      try {
        const { client, token, sessionId, loopId } = await sessionOn(owner.url, SERVER_ADMIN_TOKEN);
        const elsewhere = new ProcessNotificationsClient({ baseUrl: other.url, token });
        const stream = collect(elsewhere.loopEvents(sessionId, loopId, { signal: stop.signal }), summary);
        // The first answer of the stream's node: it is open before the delivery.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const sent = completion(sessionId, loopId);
        await client.deliverCompletion(sent);
        const [event] = await stream.until(1);
        expect(event).toMatchObject({ type: 'notification', notification: { command_id: sent.command_id, outcome: null } });
        // Its outcome after it (the outcome join reads the record's payload: PostgreSQL's JSON).
        await client.publishLifecycle(exited(sent, 7));
        await stream.until(2);
        expect(stream.items[1]).toMatchObject({
          type: 'outcome',
          notification: { command_id: sent.command_id, outcome: { exit_code: 7 } },
        });
        // Through the other node, forwarded to the owner.
        await expect(elsewhere.consume(sessionId, loopId, sent.command_id)).resolves.toMatchObject({ consumed: true });
        await stream.until(3);
        expect(stream.items[2]).toMatchObject({ type: 'consumed', consumed: { command_id: sent.command_id } });
      } finally {
        stop.abort();
        await owner.stop('SIGKILL');
        await other.stop('SIGKILL');
      }
    });
  }, 120_000);
});
