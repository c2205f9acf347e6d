import {
  admin,
  bearer,
  createHttpTestApp,
  lifecycleRecord,
  notification,
  openSessionWithLoop,
  type HttpTestApp,
} from './support/http-test-app.js';
import { openSse, type ServerSentEvent } from './support/sse-client.js';

const ids = (events: ServerSentEvent[]): (string | undefined)[] => events.map((event) => event.id);

describe('REST API v1: the journal as server-sent events', () => {
  let t: HttpTestApp;
  beforeEach(async () => {
    t = await createHttpTestApp();
  });
  afterEach(() => t.close());

  it('catches up from the journal, goes live, and resumes after Last-Event-ID without gaps or repeats', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const auth = bearer(token);
    const notify = (body: Record<string, unknown>) => t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(body);
    const first = notification(sessionId, loopId);
    await notify(first).expect(202);
    await notify(notification(sessionId, loopId)).expect(202);

    const stream = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, auth);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    const caughtUp = await stream.next(2);
    expect(ids(caughtUp)).toEqual(['1', '2']);
    const journal = await t.http.get(`/v1/sessions/${sessionId}/journal`).set(auth).expect(200);
    expect(caughtUp.map((event) => JSON.parse(event.data))).toEqual(journal.body.records);

    await notify(notification(sessionId, loopId)).expect(202);
    await t.http.post(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${first.command_id}/consume`).set(auth).expect(200);
    const live = await stream.next(2);
    expect(ids(live)).toEqual(['3', '4']);
    expect(JSON.parse(live[1]!.data)).toMatchObject({
      sequence: 4,
      kind: 'process_notification_consumed',
      cause_command_id: first.command_id,
    });
    stream.close();

    const resumed = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, { ...auth, 'Last-Event-ID': '2' });
    expect(ids(await resumed.next(2))).toEqual(['3', '4']);
    // Records of other sessions never show up; this session's next record does.
    const other = await openSessionWithLoop(t);
    await t.http
      .post(`/v1/sessions/${other.sessionId}/process-completions`)
      .set(admin)
      .send(notification(other.sessionId, other.loopId))
      .expect(202);
    await t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).set(auth).send(lifecycleRecord(sessionId, loopId)).expect(201);
    const [next] = await resumed.next(1);
    expect(next!.id).toBe('6');
    expect(JSON.parse(next!.data)).toMatchObject({ sequence: 6, kind: 'started' });
    resumed.close();
  });

  it('loses and repeats nothing when records commit while the stream is catching up', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const auth = bearer(token);
    const deliveries = Array.from({ length: 60 }, () =>
      t.http
        .post(`/v1/sessions/${sessionId}/process-completions`)
        .set(auth)
        .send(notification(sessionId, loopId))
        .then((response) => response.status),
    );
    const stream = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, auth);
    const statuses = await Promise.all(deliveries);
    const accepted = statuses.filter((status) => status === 202).length;
    const events = await stream.next(statuses.length);
    expect(ids(events)).toEqual(Array.from({ length: statuses.length }, (_, i) => String(i + 1)));
    // 64 is the default capacity, so every delivery was accepted and journaled once.
    expect(accepted).toBe(60);
    stream.close();
  });

  it('an open stream does not hold up the shutdown; the server ends it', async () => {
    const { sessionId, token } = await openSessionWithLoop(t);
    const stream = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, bearer(token));
    expect(stream.status).toBe(200);
    await t.close();
    expect(await stream.ended).toBe(true);
  });
});

describe('REST API v1: event streams stay open through proxies', () => {
  it('sends a ": keep-alive" comment at the configured interval, between events, and stops with the stream', async () => {
    const t = await createHttpTestApp({ sseKeepAliveMs: 50 });
    try {
      const { sessionId, loopId, token } = await openSessionWithLoop(t);
      const stream = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, bearer(token));
      expect(await stream.nextComment()).toBe('keep-alive');
      await t.http
        .post(`/v1/sessions/${sessionId}/process-completions`)
        .set(bearer(token))
        .send(notification(sessionId, loopId))
        .expect(202);
      // Comments are not events: the first event is still the first record.
      expect(ids(await stream.next(1))).toEqual(['1']);
      expect(await stream.nextComment()).toBe('keep-alive');
      await t.close();
      expect(await stream.ended).toBe(true);
    } finally {
      await t.close();
    }
  });
});
