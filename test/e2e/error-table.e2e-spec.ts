import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { getDataSourceToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  admin,
  bearer,
  createHttpTestApp,
  lifecycleRecord,
  notification,
  openSessionWithLoop,
  type HttpTestApp,
} from './support/http-test-app.js';
import { expectProblem } from './support/problem.js';

const completions = (sessionId: string): string => `/v1/sessions/${sessionId}/process-completions`;

describe('REST API v1: every error of the §8 table', () => {
  let t: HttpTestApp;
  beforeEach(async () => {
    t = await createHttpTestApp({ loopCapacity: 1 });
  });
  afterEach(() => t.close());

  const journalLength = async (sessionId: string): Promise<number> => (await t.service.readJournal(sessionId, 0, 1000)).length;

  it('400 invalid_json: the body is not JSON', async () => {
    const { sessionId, token } = await openSessionWithLoop(t);
    const response = await t.http
      .post(completions(sessionId))
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send('{"command_id":');
    expectProblem(response, 400, 'invalid_json');
  });

  it('400 invalid_field: validation, naming the field', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const response = await t.http
      .post(completions(sessionId))
      .set(bearer(token))
      .send(notification(sessionId, loopId, { state: 'running' }));
    expectProblem(response, 400, 'invalid_field', { field: 'state_reason' });
  });

  it('401 unauthorized: no token, a malformed header or an unknown token, on every /v1 route', async () => {
    const { sessionId, loopId } = await openSessionWithLoop(t);
    const routes: [method: 'get' | 'post', path: string][] = [
      ['post', '/v1/sessions'],
      ['get', `/v1/sessions/${sessionId}`],
      ['post', `/v1/sessions/${sessionId}/token`],
      ['post', `/v1/sessions/${sessionId}/close`],
      ['post', `/v1/sessions/${sessionId}/loops`],
      ['get', `/v1/sessions/${sessionId}/loops/${loopId}`],
      ['post', `/v1/sessions/${sessionId}/loops/${loopId}/stop`],
      ['post', completions(sessionId)],
      ['post', `/v1/sessions/${sessionId}/process-lifecycle`],
      ['get', `/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`],
      ['post', `/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${randomUUID()}/consume`],
      ['get', `/v1/sessions/${sessionId}/journal`],
      ['get', `/v1/sessions/${sessionId}/events`],
    ];
    for (const [method, path] of routes) {
      const none = await t.http[method](path);
      expectProblem(none, 401, 'unauthorized');
      expect(none.headers['www-authenticate']).toBe('Bearer');
      expectProblem(await t.http[method](path).set('Authorization', 'Basic dXNlcjpwYXNz'), 401, 'unauthorized');
      expectProblem(await t.http[method](path).set(bearer('not-a-token')), 401, 'unauthorized');
    }
    expect(await journalLength(sessionId)).toBe(0);
  });

  it('403 forbidden: a valid token of another session, or a session token creating a session', async () => {
    const mine = await openSessionWithLoop(t);
    const other = await openSessionWithLoop(t);
    const theirs = bearer(other.token);
    expectProblem(await t.http.get(`/v1/sessions/${mine.sessionId}`).set(theirs), 403, 'forbidden');
    expectProblem(await t.http.get(`/v1/sessions/${mine.sessionId}/journal`).set(theirs), 403, 'forbidden');
    expectProblem(await t.http.get(`/v1/sessions/${mine.sessionId}/events`).set(theirs), 403, 'forbidden');
    expectProblem(
      await t.http.post(completions(mine.sessionId)).set(theirs).send(notification(mine.sessionId, mine.loopId)),
      403,
      'forbidden',
    );
    expectProblem(await t.http.post('/v1/sessions').set(bearer(mine.token)), 403, 'forbidden');
    // The admin token opens every session.
    await t.http.get(`/v1/sessions/${mine.sessionId}`).set(admin).expect(200);
    expect(await journalLength(mine.sessionId)).toBe(0);
  });

  it('403 owner_mismatch: the body names another session than the path', async () => {
    const mine = await openSessionWithLoop(t);
    const other = await openSessionWithLoop(t);
    const response = await t.http
      .post(completions(mine.sessionId))
      .set(bearer(mine.token))
      .send(notification(other.sessionId, other.loopId));
    expectProblem(response, 403, 'owner_mismatch');
    const lifecycle = await t.http
      .post(`/v1/sessions/${mine.sessionId}/process-lifecycle`)
      .set(bearer(mine.token))
      .send(lifecycleRecord(other.sessionId, other.loopId));
    expectProblem(lifecycle, 403, 'owner_mismatch');
    expect(await journalLength(mine.sessionId)).toBe(0);
    expect(await journalLength(other.sessionId)).toBe(0);
  });

  it('404 session_not_found', async () => {
    const unknown = randomUUID();
    expectProblem(await t.http.get(`/v1/sessions/${unknown}`).set(admin), 404, 'session_not_found');
    expectProblem(await t.http.post(`/v1/sessions/${unknown}/loops`).set(admin), 404, 'session_not_found');
    expectProblem(await t.http.get(`/v1/sessions/${unknown}/journal`).set(admin), 404, 'session_not_found');
    expectProblem(await t.http.get(`/v1/sessions/${unknown}/events`).set(admin), 404, 'session_not_found');
  });

  it('404 loop_not_found, disposition stopped; nothing journaled', async () => {
    const { sessionId, token } = await openSessionWithLoop(t);
    const unknownLoop = randomUUID();
    const response = await t.http.post(completions(sessionId)).set(bearer(token)).send(notification(sessionId, unknownLoop));
    expectProblem(response, 404, 'loop_not_found', { disposition: 'stopped' });
    expectProblem(await t.http.get(`/v1/sessions/${sessionId}/loops/${unknownLoop}`).set(bearer(token)), 404, 'loop_not_found', {
      disposition: 'stopped',
    });
    expect(await journalLength(sessionId)).toBe(0);
  });

  it('404 not_found: consuming an id the loop never journaled', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const response = await t.http
      .post(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${randomUUID()}/consume`)
      .set(bearer(token));
    expectProblem(response, 404, 'not_found');
  });

  it('404 not_found: a route that does not exist', async () => {
    expectProblem(await t.http.get('/v2/sessions').set(admin), 404, 'not_found');
    expectProblem(await t.http.delete('/v1/nothing-here').set(admin), 404, 'not_found');
    expectProblem(await t.http.get(`/v1/sessions/${randomUUID()}/loops/${randomUUID()}/unknown`).set(admin), 404, 'not_found');
  });

  it('405 method_not_allowed with Allow: a wrong method on a route that exists', async () => {
    const { sessionId, loopId } = await openSessionWithLoop(t);
    const cases: [method: 'get' | 'delete' | 'put' | 'patch' | 'post', path: string, allow: string][] = [
      ['delete', '/v1/sessions', 'POST'],
      ['get', '/v1/sessions', 'POST'],
      ['put', `/v1/sessions/${sessionId}`, 'GET, HEAD'],
      ['get', completions(sessionId), 'POST'],
      ['patch', `/v1/sessions/${sessionId}/loops/${loopId}/stop`, 'POST'],
      ['post', `/v1/sessions/${sessionId}/journal`, 'GET, HEAD'],
      ['post', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await t.http[method](path).set(admin);
      expectProblem(response, 405, 'method_not_allowed');
      expect(response.headers.allow).toBe(allow);
    }
    expect(await journalLength(sessionId)).toBe(0);
  });

  it('409 unsupported_engine: a foreign loop, disposition stopped; nothing journaled', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t, { engine: 'foreign' });
    const response = await t.http.post(completions(sessionId)).set(bearer(token)).send(notification(sessionId, loopId));
    expectProblem(response, 409, 'unsupported_engine', { disposition: 'stopped' });
    expect(await journalLength(sessionId)).toBe(0);
  });

  it('409 already_exists: a session or loop id that is taken', async () => {
    const { sessionId, loopId } = await openSessionWithLoop(t);
    expectProblem(await t.http.post('/v1/sessions').set(admin).send({ session_id: sessionId }), 409, 'already_exists');
    expectProblem(await t.http.post(`/v1/sessions/${sessionId}/loops`).set(admin).send({ loop_id: loopId }), 409, 'already_exists');
  });

  it('409 session_closed: a write to a closed session with the admin token; nothing journaled', async () => {
    const { sessionId, loopId } = await openSessionWithLoop(t);
    await t.http.post(`/v1/sessions/${sessionId}/close`).set(admin).expect(200);
    const response = await t.http.post(completions(sessionId)).set(admin).send(notification(sessionId, loopId));
    expectProblem(response, 409, 'session_closed');
    expect(response.body.disposition).toBeUndefined();
    expect(await journalLength(sessionId)).toBe(0);
  });

  it('413 payload_too_large: a body over 16 KiB', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const body = JSON.stringify(notification(sessionId, loopId, { padding: 'x'.repeat(16 * 1024) }));
    const response = await t.http.post(completions(sessionId)).set(bearer(token)).set('Content-Type', 'application/json').send(body);
    expectProblem(response, 413, 'payload_too_large');
    expect(await journalLength(sessionId)).toBe(0);
  });

  it('415 unsupported_media_type: a body that is not declared as JSON', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const response = await t.http
      .post(completions(sessionId))
      .set(bearer(token))
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify(notification(sessionId, loopId)));
    expectProblem(response, 415, 'unsupported_media_type');
    expect(await journalLength(sessionId)).toBe(0);
  });

  it('422 idempotency_collision: the same command_id with a different payload, disposition collision and the original sequence', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const original = notification(sessionId, loopId);
    await t.http.post(completions(sessionId)).set(bearer(token)).send(original).expect(202);
    const response = await t.http
      .post(completions(sessionId))
      .set(bearer(token))
      .send({ ...original, process_handle: 'other' });
    expectProblem(response, 422, 'idempotency_collision', { disposition: 'collision', sequence: 1 });

    const record = lifecycleRecord(sessionId, loopId);
    await t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).set(bearer(token)).send(record).expect(201);
    const lifecycle = await t.http
      .post(`/v1/sessions/${sessionId}/process-lifecycle`)
      .set(bearer(token))
      .send({ ...record, process_handle: 'other' });
    expectProblem(lifecycle, 422, 'idempotency_collision', { disposition: 'collision', sequence: 2 });
    expect(await journalLength(sessionId)).toBe(2);
  });

  it('503 delivery_stopped: a full pending set, disposition stopped, cause inbox_full, Retry-After; the retry succeeds', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const first = notification(sessionId, loopId);
    await t.http.post(completions(sessionId)).set(bearer(token)).send(first).expect(202);
    const second = notification(sessionId, loopId);
    const response = await t.http.post(completions(sessionId)).set(bearer(token)).send(second);
    expectProblem(response, 503, 'delivery_stopped', { disposition: 'stopped', cause: 'inbox_full', loop_id: loopId });
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['idempotent-replayed']).toBeUndefined();
    // Still full: the identical retry is stopped again, and says it wrote nothing new.
    const stoppedRetry = await t.http.post(completions(sessionId)).set(bearer(token)).send(second);
    expectProblem(stoppedRetry, 503, 'delivery_stopped', { disposition: 'stopped', cause: 'inbox_full', loop_id: loopId });
    expect(stoppedRetry.headers['idempotent-replayed']).toBe('true');

    await t.http
      .post(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${first.command_id}/consume`)
      .set(bearer(token))
      .expect(200);
    // The stopped notification was journaled; the identical retry writes nothing new.
    const retry = await t.http.post(completions(sessionId)).set(bearer(token)).send(second).expect(202);
    expect(retry.body).toEqual({ disposition: 'accepted', command_id: second.command_id, sequence: 2, appended: false });
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('503 journal_unavailable: the append failed, nothing was dispatched; /healthz reports 503 when the database is gone', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const dataSource = t.app.get<DataSource>(getDataSourceToken('process-notifications'), { strict: false });
    await dataSource.query('PRAGMA query_only = ON');
    const response = await t.http.post(completions(sessionId)).set(bearer(token)).send(notification(sessionId, loopId));
    // The failed insert ran in a transaction: the answer does not claim that nothing was written.
    expectProblem(response, 503, 'journal_unavailable', { may_have_committed: true });
    expect(response.text).not.toMatch(/SQLITE|readonly/i);
    await t.http
      .get(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`)
      .set(bearer(token))
      .expect(200, { notifications: [] });

    await dataSource.destroy();
    expectProblem(await t.http.get('/healthz'), 503, 'journal_unavailable');
  });

  it('500 internal_error: an unexpected error reveals nothing and the server keeps serving', async () => {
    const { sessionId, token } = await openSessionWithLoop(t);
    const service = t.app.get(ProcessNotificationsService);
    const getSession = service.getSession;
    service.getSession = () => {
      throw new Error('secret internals at /srv/db');
    };
    const response = await t.http.get(`/v1/sessions/${sessionId}`).set(bearer(token));
    expectProblem(response, 500, 'internal_error');
    expect(response.text).not.toContain('secret');
    service.getSession = getSession;
    await t.http.get(`/v1/sessions/${sessionId}`).set(bearer(token)).expect(200);
  });
});
