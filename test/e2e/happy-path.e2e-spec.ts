import { randomUUID } from 'node:crypto';
import {
  admin,
  bearer,
  createHttpTestApp,
  lifecycleRecord,
  notification,
  openSessionWithLoop,
  type HttpTestApp,
} from './support/http-test-app.js';

describe('REST API v1: the happy path', () => {
  let t: HttpTestApp;
  beforeEach(async () => {
    t = await createHttpTestApp({ apiDocs: true });
  });
  afterEach(() => t.close());

  it('routes a path with a trailing slash or in another case like the path itself, as the Express server did', async () => {
    const session = await t.http.post('/v1/sessions/').set(admin).expect(201);
    const sessionId = session.body.session_id as string;
    const loop = await t.http.post(`/V1/Sessions/${sessionId.toUpperCase()}/Loops/`).set(bearer(session.body.token)).send({}).expect(201);
    const n = notification(sessionId, loop.body.loop_id as string);
    await t.http.post(`/v1/sessions/${sessionId}/process-completions/`).set(bearer(session.body.token)).send(n).expect(202);
    const read = await t.http.get(`/v1/sessions/${sessionId}/`).set(bearer(session.body.token)).expect(200);
    expect(read.body.loops).toEqual([expect.objectContaining({ loop_id: loop.body.loop_id, pending: 1 })]);
  });

  it('creates a session and a loop, delivers, de-duplicates, lists, consumes and pages the journal', async () => {
    const sessionId = randomUUID();
    const created = await t.http.post('/v1/sessions').set(admin).send({ session_id: sessionId.toUpperCase() }).expect(201);
    expect(created.body).toEqual({ session_id: sessionId, token: expect.any(String) });
    const token = created.body.token as string;
    const auth = bearer(token);

    const loop = await t.http.post(`/v1/sessions/${sessionId}/loops`).set(auth).send({}).expect(201);
    expect(loop.body).toEqual({ loop_id: expect.any(String), engine: 'native', state: 'running', capacity: 64, pending: 0 });
    const loopId = loop.body.loop_id as string;

    const first = notification(sessionId, loopId);
    const accepted = await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(first).expect(202);
    expect(accepted.body).toEqual({ disposition: 'accepted', command_id: first.command_id, sequence: 1, appended: true });
    expect(accepted.headers['idempotent-replayed']).toBeUndefined();

    const duplicate = await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(first).expect(200);
    expect(duplicate.body).toEqual({ disposition: 'duplicate', command_id: first.command_id, sequence: 1, appended: false });
    expect(duplicate.headers['idempotent-replayed']).toBe('true');

    // An upper-case retry is the same notification, not a collision.
    const upper = { ...first, command_id: String(first.command_id).toUpperCase(), loop_id: loopId.toUpperCase() };
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(upper).expect(200);

    const second = notification(sessionId, loopId, { process_handle: 'proc-2', state: 'killed', reason: 'output_limit' });
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(second).expect(202);

    const pending = await t.http.get(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`).set(auth).expect(200);
    expect(pending.body).toEqual({
      notifications: [
        {
          command_id: first.command_id,
          session_id: sessionId,
          loop_id: loopId,
          process_handle: 'proc-1',
          state: 'exited',
          reason: 'exited',
          sequence: 1,
          outcome: null,
        },
        {
          command_id: second.command_id,
          session_id: sessionId,
          loop_id: loopId,
          process_handle: 'proc-2',
          state: 'killed',
          reason: 'output_limit',
          sequence: 2,
          outcome: null,
        },
      ],
    });
    await t.http
      .get(`/v1/sessions/${sessionId}/loops/${loopId}`)
      .set(auth)
      .expect(200, { loop_id: loopId, engine: 'native', state: 'running', capacity: 64, pending: 2 });

    const consumePath = `/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${first.command_id}/consume`;
    const consumed = await t.http.post(consumePath).set(auth).expect(200);
    expect(consumed.body).toEqual({ consumed: true, sequence: 3 });
    expect(consumed.headers['idempotent-replayed']).toBeUndefined();
    const again = await t.http.post(consumePath).set(auth).expect(200);
    expect(again.body).toEqual({ consumed: false, sequence: 3 });
    expect(again.headers['idempotent-replayed']).toBe('true');

    // A late retry of a consumed notification is a duplicate and does not come back.
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(first).expect(200);
    const after = await t.http.get(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`).set(auth).expect(200);
    expect(after.body.notifications.map((n: { command_id: string }) => n.command_id)).toEqual([second.command_id]);

    const page1 = await t.http.get(`/v1/sessions/${sessionId}/journal?after=0&limit=2`).set(auth).expect(200);
    expect(page1.body.next_after).toBe(2);
    expect(page1.body.records).toEqual([
      {
        sequence: 1,
        kind: 'process_notification',
        loop_id: loopId,
        idempotency_id: first.command_id,
        cause_command_id: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        payload: first,
      },
      expect.objectContaining({ sequence: 2, kind: 'process_notification', idempotency_id: second.command_id }),
    ]);
    const page2 = await t.http.get(`/v1/sessions/${sessionId}/journal?after=${page1.body.next_after}&limit=2`).set(auth).expect(200);
    expect(page2.body.records).toEqual([
      expect.objectContaining({ sequence: 3, kind: 'process_notification_consumed', loop_id: loopId, cause_command_id: first.command_id }),
    ]);
    expect(page2.body.next_after).toBe(3);
    const empty = await t.http.get(`/v1/sessions/${sessionId}/journal?after=3`).set(auth).expect(200);
    expect(empty.body).toEqual({ records: [], next_after: 3 });

    const session = await t.http.get(`/v1/sessions/${sessionId}`).set(auth).expect(200);
    expect(session.body).toEqual({
      session_id: sessionId,
      state: 'open',
      closed_at: null,
      loops: [{ loop_id: loopId, engine: 'native', state: 'running', capacity: 64, pending: 1 }],
    });
  });

  it('publishes a lifecycle record: 201 when new, 200 with Idempotent-Replayed on an identical retry', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const record = lifecycleRecord(sessionId, loopId);
    const created = await t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).set(bearer(token)).send(record).expect(201);
    expect(created.body).toEqual({ event_id: record.event_id, sequence: 1, appended: true });
    expect(created.headers['idempotent-replayed']).toBeUndefined();
    const retry = await t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).set(bearer(token)).send(record).expect(200);
    expect(retry.body).toEqual({ event_id: record.event_id, sequence: 1, appended: false });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const journal = await t.http.get(`/v1/sessions/${sessionId}/journal`).set(bearer(token)).expect(200);
    expect(journal.body.records).toEqual([expect.objectContaining({ sequence: 1, kind: 'started', idempotency_id: record.event_id })]);
  });

  it('stops a loop: later deliveries answer 503 delivery_stopped, final, with a long Retry-After', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const stopped = await t.http.post(`/v1/sessions/${sessionId}/loops/${loopId}/stop`).set(bearer(token)).expect(200);
    expect(stopped.body).toEqual({ loop_id: loopId, engine: 'native', state: 'stopped', capacity: 64, pending: 0 });
    const response = await t.http
      .post(`/v1/sessions/${sessionId}/process-completions`)
      .set(bearer(token))
      .send(notification(sessionId, loopId))
      .expect(503);
    // A stopped loop does not come back: a client that obeys the header must not retry every second.
    expect(response.headers['retry-after']).toBe('60');
    expect(response.body).toMatchObject({ code: 'delivery_stopped', disposition: 'stopped', cause: 'loop_stopped', loop_id: loopId });
  });

  it('serves the health check and the OpenAPI document without a token', async () => {
    await t.http.get('/healthz').expect(200, { status: 'ok' });
    await t.http
      .get('/docs')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    const doc = await t.http.get('/docs-json').expect(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/sessions',
        '/v1/sessions/{sid}',
        '/v1/sessions/{sid}/loops',
        '/v1/sessions/{sid}/process-completions',
        '/v1/sessions/{sid}/process-lifecycle',
        '/v1/sessions/{sid}/journal',
        '/v1/sessions/{sid}/events',
        '/healthz',
      ]),
    );
    const body = doc.body.paths['/v1/sessions/{sid}/process-completions'].post.requestBody.content['application/json'].schema;
    expect(body).toMatchObject({ additionalProperties: false, properties: { command_id: { type: 'string', format: 'uuid' } } });
  });
});
