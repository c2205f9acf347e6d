import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { admin, bearer, createHttpTestApp, notification, openSessionWithLoop, type HttpTestApp } from './support/http-test-app.js';
import { expectProblem } from './support/problem.js';
import { NOTIFICATION_VECTORS } from '../support/notification-vectors.js';

const VECTORS = NOTIFICATION_VECTORS;

/** POSTs raw bytes as JSON, chunked (no Content-Length), and resolves with status and parsed body. */
function sendChunked(url: string, token: string, chunks: Buffer[]): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...bearer(token), 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('REST API v1: bad input is refused before the journal and never crashes the server', () => {
  let t: HttpTestApp;
  let sessionId: string;
  let loopId: string;
  let token: string;
  beforeEach(async () => {
    t = await createHttpTestApp();
    ({ sessionId, loopId, token } = await openSessionWithLoop(t));
  });
  afterEach(async () => {
    try {
      // Whatever was thrown at it, the server still answers and journaled nothing but the
      // stop a test made with a valid body.
      await t.http.get('/healthz').expect(200);
      const records = await t.service.readJournal(sessionId, 0, 1000);
      expect(records.filter((record) => record.kind !== 'loop_stopped')).toEqual([]);
    } finally {
      await t.close();
    }
  });

  const postRaw = (body: string, contentType = 'application/json') =>
    t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(bearer(token)).set('Content-Type', contentType).send(body);
  const post = (body: unknown) => postRaw(JSON.stringify(body));

  it('413 for a body over 16 KiB, announced by Content-Length or streamed in chunks', async () => {
    expectProblem(await postRaw('"' + 'x'.repeat(16 * 1024) + '"'), 413, 'payload_too_large');
    const streamed = await sendChunked(`${t.url}/v1/sessions/${sessionId}/process-completions`, token, [
      Buffer.from('{"command_id":"'),
      Buffer.alloc(17 * 1024, 'a'),
      Buffer.from('"}'),
    ]);
    expect(streamed.status).toBe(413);
    expect(streamed.body.code).toBe('payload_too_large');
    // Exactly 16 KiB is still read (and then refused for what it says).
    const atLimit = JSON.stringify(notification(sessionId, loopId, { process_handle: 'x'.repeat(16 * 1024 - 300) }));
    const padded = atLimit + ' '.repeat(16 * 1024 - Buffer.byteLength(atLimit));
    expectProblem(await postRaw(padded), 400, 'invalid_field', { field: 'process_handle' });
  });

  it('415 for a body whose content type is not JSON, or that is compressed', async () => {
    const body = JSON.stringify(notification(sessionId, loopId));
    expectProblem(await postRaw(body, 'text/plain'), 415, 'unsupported_media_type');
    expectProblem(await postRaw(body, 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
    expectProblem(await postRaw(body, 'application/json; charset=latin1'), 415, 'unsupported_media_type');
    expectProblem(
      await t.http
        .post(`/v1/sessions/${sessionId}/process-completions`)
        .set(bearer(token))
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .send(body),
      415,
      'unsupported_media_type',
    );
  });

  it('accepts application/json with a UTF-8 charset and +json media types', async () => {
    await postRaw(JSON.stringify(notification(sessionId, loopId, { command_id: 'x' })), 'application/json; charset=UTF-8').expect(400);
    const response = await postRaw(JSON.stringify(notification(sessionId, loopId, { command_id: 'x' })), 'application/problem+json');
    expectProblem(response, 400, 'invalid_field', { field: 'command_id' });
  });

  it.each([
    ['truncated', '{"command_id":'],
    ['trailing comma', '{"a":1,}'],
    ['single quotes', "{'a':1}"],
    ['trailing data', '{} {}'],
    ['NaN', '{"a":NaN}'],
    ['leading zero', '{"a":01}'],
    ['control character in a string', '{"a":"\u0001"}'],
    ['duplicate top-level key', '{"state":"exited","state":"exited"}'],
    ['duplicate key written with an escape', '{"state":"exited","st\\u0061te":"exited"}'],
    ['duplicate nested key', '{"a":[{"b":1,"b":2}]}'],
    ['nesting 40 deep', '['.repeat(40) + ']'.repeat(40)],
  ])('400 invalid_json: %s', async (_name, body) => {
    expectProblem(await postRaw(body), 400, 'invalid_json');
  });

  it('400 invalid_field naming the field for an escaped lone surrogate: JSON syntax, not a valid value (spec section 8)', async () => {
    const valid = JSON.stringify(notification(sessionId, loopId));
    const withHandle = valid.replace(/"process_handle":"[^"]*"/, '"process_handle":"build-\\ud800"');
    expect(withHandle).toContain('\\ud800');
    expectProblem(await postRaw(withHandle), 400, 'invalid_field', { field: 'process_handle' });
    expectProblem(await postRaw(`${valid.slice(0, -1)},"\\udc00":1}`), 400, 'invalid_field', { field: '\udc00' });
  });

  it('400 invalid_json for bytes that are not UTF-8', async () => {
    const response = await sendChunked(`${t.url}/v1/sessions/${sessionId}/process-completions`, token, [
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    ]);
    expect(response).toEqual({ status: 400, body: expect.objectContaining({ code: 'invalid_json' }) });
  });

  it('nesting within the limit is parsed and then refused by the schema', async () => {
    expectProblem(await postRaw('['.repeat(20) + ']'.repeat(20)), 400, 'invalid_field', { field: 'command_id' });
  });

  it('400 invalid_field: __proto__ and constructor are unknown properties like any other', async () => {
    const valid = JSON.stringify(notification(sessionId, loopId));
    for (const key of ['__proto__', 'constructor', 'prototype', 'command']) {
      const body = `${valid.slice(0, -1)},"${key}":{"polluted":true}}`;
      expectProblem(await postRaw(body), 400, 'invalid_field', { field: key });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('400 invalid_field: a number, boolean or object where a string belongs', async () => {
    expectProblem(await post(notification(sessionId, loopId, { command_id: 42 })), 400, 'invalid_field', { field: 'command_id' });
    expectProblem(await post(notification(sessionId, loopId, { process_handle: true })), 400, 'invalid_field', { field: 'process_handle' });
    expectProblem(await post(notification(sessionId, loopId, { loop_id: { id: loopId } })), 400, 'invalid_field', { field: 'loop_id' });
    expectProblem(await post(notification(sessionId, loopId, { state: 1 })), 400, 'invalid_field', { field: 'state_reason' });
  });

  it.each([['[]'], ['"text"'], ['null'], ['42'], ['true'], ['']])(
    '400 invalid_field naming the first field for the body %j',
    async (body) => {
      expectProblem(await postRaw(body), 400, 'invalid_field', { field: 'command_id' });
    },
  );

  it('400 invalid_field naming the path parameter for a non-UUID or nil sid, lid or command_id', async () => {
    const nil = '00000000-0000-0000-0000-000000000000';
    for (const bad of ['not-a-uuid', nil, `${sessionId}0`, '{sid}']) {
      expectProblem(await t.http.get(`/v1/sessions/${encodeURIComponent(bad)}`).set(admin), 400, 'invalid_field', { field: 'session_id' });
      expectProblem(await t.http.get(`/v1/sessions/${sessionId}/loops/${encodeURIComponent(bad)}`).set(admin), 400, 'invalid_field', {
        field: 'loop_id',
      });
      expectProblem(
        await t.http.post(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${encodeURIComponent(bad)}/consume`).set(admin),
        400,
        'invalid_field',
        { field: 'command_id' },
      );
    }
    expectProblem(
      await t.http.post(`/v1/sessions/not-a-uuid/process-completions`).set(admin).send(notification(sessionId, loopId)),
      400,
      'invalid_field',
      {
        field: 'session_id',
      },
    );
  });

  it('400 invalid_field for a path that is not valid percent-encoding', async () => {
    expectProblem(await t.http.get('/v1/sessions/%ZZ').set(admin), 400, 'invalid_field', { field: 'path' });
    expectProblem(await t.http.get(`/v1/sessions/${sessionId}/loops/%E0%A4%A`).set(admin), 400, 'invalid_field', { field: 'path' });
  });

  it('accepts upper-case UUIDs in paths and lower-cases them', async () => {
    const auth = bearer(token);
    const session = await t.http.get(`/v1/sessions/${sessionId.toUpperCase()}`).set(auth).expect(200);
    expect(session.body.session_id).toBe(sessionId);
    const loop = await t.http.get(`/v1/sessions/${sessionId.toUpperCase()}/loops/${loopId.toUpperCase()}`).set(auth).expect(200);
    expect(loop.body.loop_id).toBe(loopId);
    await t.http.get(`/v1/sessions/${sessionId.toUpperCase()}/journal`).set(auth).expect(200, { records: [], next_after: 0 });
  });

  it.each([
    ['after=-1', 'after'],
    ['after=abc', 'after'],
    ['after=1.5', 'after'],
    ['after=1&after=2', 'after'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=', 'limit'],
    ['limit=1e2', 'limit'],
  ])('400 invalid_field for the journal query %s', async (query, field) => {
    expectProblem(await t.http.get(`/v1/sessions/${sessionId}/journal?${query}`).set(bearer(token)), 400, 'invalid_field', { field });
  });

  it('400 invalid_field for a Last-Event-ID that is not a sequence', async () => {
    expectProblem(
      await t.http.get(`/v1/sessions/${sessionId}/events`).set(bearer(token)).set('Last-Event-ID', 'abc'),
      400,
      'invalid_field',
      {
        field: 'last_event_id',
      },
    );
  });

  it('validates the session and loop creation bodies against their closed schemas', async () => {
    const sessions = (body: string) => t.http.post('/v1/sessions').set(admin).set('Content-Type', 'application/json').send(body);
    expectProblem(await sessions('{"session_id":"nope"}'), 400, 'invalid_field', { field: 'session_id' });
    expectProblem(await sessions('{"session_id":"00000000-0000-0000-0000-000000000000"}'), 400, 'invalid_field', { field: 'session_id' });
    expectProblem(await sessions('{"session_id":5}'), 400, 'invalid_field', { field: 'session_id' });
    expectProblem(await sessions('{"session_id":null}'), 400, 'invalid_field', { field: 'session_id' });
    expectProblem(await sessions('{"token":"mine"}'), 400, 'invalid_field', { field: 'token' });
    expectProblem(await sessions('{"__proto__":{}}'), 400, 'invalid_field', { field: '__proto__' });
    expectProblem(await sessions('[]'), 400, 'invalid_field', { field: 'session_id' });
    expectProblem(await sessions('{"session_id":"a","session_id":"b"}'), 400, 'invalid_json');

    const loops = (body: string) =>
      t.http.post(`/v1/sessions/${sessionId}/loops`).set(admin).set('Content-Type', 'application/json').send(body);
    expectProblem(await loops('{"engine":"turbo"}'), 400, 'invalid_field', { field: 'engine' });
    expectProblem(await loops('{"engine":1}'), 400, 'invalid_field', { field: 'engine' });
    expectProblem(await loops('{"loop_id":"x"}'), 400, 'invalid_field', { field: 'loop_id' });
    expectProblem(await loops('{"loop_id":7}'), 400, 'invalid_field', { field: 'loop_id' });
    expectProblem(await loops('{"capacity":7}'), 400, 'invalid_field', { field: 'capacity' });
    expectProblem(await loops('"native"'), 400, 'invalid_field', { field: 'engine' });
    const upper = randomUUID().toUpperCase();
    const created = await loops(JSON.stringify({ engine: 'foreign', loop_id: upper })).expect(201);
    expect(created.body).toMatchObject({ loop_id: upper.toLowerCase(), engine: 'foreign' });
  });

  it('refuses any field on the bodyless action routes (stop, consume), and accepts none or {}', async () => {
    const { loop_id: loopId } = (await t.http.post(`/v1/sessions/${sessionId}/loops`).set(admin).expect(201)).body as { loop_id: string };
    const stop = `/v1/sessions/${sessionId}/loops/${loopId}/stop`;
    const consume = `/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${randomUUID()}/consume`;
    const json = (path: string, body: string) => t.http.post(path).set(admin).set('Content-Type', 'application/json').send(body);
    expectProblem(await json(stop, '{"force":true}'), 400, 'invalid_field', { field: 'force' });
    expectProblem(await json(consume, '{"command":"rm -rf /"}'), 400, 'invalid_field', { field: 'command' });
    expectProblem(await json(stop, '[]'), 400, 'invalid_field', { field: 'body' });
    expectProblem(await json(consume, '{}'), 404, 'not_found');
    await json(stop, '{}').expect(200);
    await t.http.post(stop).set(admin).expect(200);
  });
});

describe('REST API v1: the notification test vectors over HTTP', () => {
  let t: HttpTestApp;
  beforeAll(async () => {
    t = await createHttpTestApp();
    const sessionId = '1fe4b70e-320c-4988-a3ee-b16518253443';
    await t.http.post('/v1/sessions').set(admin).send({ session_id: sessionId }).expect(201);
    await t.http.post(`/v1/sessions/${sessionId}/loops`).set(admin).send({ loop_id: '96dade9e-59ca-46bf-ac91-84eaa806ca5a' }).expect(201);
  });
  afterAll(() => t.close());

  it.each(VECTORS.map((vector) => [vector.name, vector] as const))('%s', async (_name, vector) => {
    const response = await t.http
      .post('/v1/sessions/1fe4b70e-320c-4988-a3ee-b16518253443/process-completions')
      .set(admin)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(vector.input));
    if (vector.field === null) {
      // Every vector has its own command_id, so each valid one is a first delivery: 202 accepted.
      expect({ status: response.status, body: response.body }).toEqual({
        status: 202,
        body: {
          disposition: 'accepted',
          command_id: String((vector.input as { command_id: unknown }).command_id).toLowerCase(),
          sequence: expect.any(Number),
          appended: true,
        },
      });
    } else {
      expectProblem(response, 400, 'invalid_field', { field: vector.field });
    }
  });
});
