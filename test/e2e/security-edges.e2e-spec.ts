import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { serverConfigFromEnv } from '../../src/config/server-config.js';
import { createServerApp } from '../../src/server-app.js';
import { ADMIN_TOKEN, admin, bearer, createHttpTestApp, openSessionWithLoop, type HttpTestApp } from './support/http-test-app.js';
import { expectProblem } from './support/problem.js';
import { openSse, type SseConnection } from './support/sse-client.js';
import { rawRequest } from '../support/raw-request.js';

// The server's side of issue 36 on one node: what an attacker can send to the edge, and the
// headers every answer of the API carries.

const SECURE_API_HEADERS = { 'cache-control': expect.stringContaining('no-store'), 'x-content-type-options': 'nosniff' };

describe('the edge of one node (issue 36)', () => {
  let t: HttpTestApp;
  beforeAll(async () => (t = await createHttpTestApp()));
  afterAll(() => t.close());

  it('refuses a request target that is not a path with 400 invalid_request_target, whatever it names', async () => {
    const { sessionId, loopId } = await openSessionWithLoop(t);
    const pending = `/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`;
    for (const [method, target] of [
      ['GET', `http://127.0.0.1:9${pending}`],
      ['GET', `${t.url}${pending}`],
      ['POST', `http://127.0.0.1:9/v1/sessions/${sessionId}/process-completions`],
      ['GET', `http://127.0.0.1:9/healthz`],
      ['OPTIONS', '*'],
    ] as const) {
      const answer = await rawRequest(
        t.url,
        method,
        target,
        { ...admin, 'content-type': 'application/json' },
        method === 'POST' ? '{}' : undefined,
      );
      expect({ target, status: answer.status, type: answer.headers['content-type'] }).toEqual({
        target,
        status: 400,
        type: 'application/problem+json',
      });
      expect(JSON.parse(answer.body)).toMatchObject({ status: 400, code: 'invalid_request_target' });
      expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    }
    // The same request in origin-form is answered.
    expect((await rawRequest(t.url, 'GET', pending, admin)).status).toBe(200);
  });

  it('says Cache-Control: no-store and X-Content-Type-Options: nosniff on every answer of the API: success, error, event stream', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const answers = [
      await t.http.get(`/v1/sessions/${sessionId}`).set(bearer(token)).expect(200),
      await t.http.get(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`).set(bearer(token)).expect(200),
      await t.http.get('/v1/admin/sessions').set(admin).expect(200),
      await t.http.post('/v1/sessions').set(admin).expect(201),
      await t.http.get(`/v1/sessions/${sessionId}`).expect(401),
      await t.http.get(`/v1/sessions/${sessionId}`).set(bearer('no-such-token')).expect(401),
      await t.http.get('/v1/sessions/00000000-0000-4000-8000-000000000000').set(admin).expect(404),
      await t.http.get('/v1/admin/sessions?limit=0').set(admin).expect(400),
      await t.http
        .post(`/v1/sessions/${sessionId}/process-completions`)
        .set(bearer(token))
        .set('content-type', 'application/json')
        .send('{')
        .expect(400),
    ];
    for (const [index, answer] of answers.entries()) {
      expect({ index, status: answer.status, headers: answer.headers }).toEqual({
        index,
        status: answer.status,
        headers: expect.objectContaining(SECURE_API_HEADERS),
      });
    }
    const stream = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, bearer(token));
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers).toEqual(expect.objectContaining(SECURE_API_HEADERS));
    } finally {
      stream.close();
    }
  });

  it('refuses an admin cursor that was edited and encoded again (400 invalid_field, field cursor), and takes it as given', async () => {
    for (let i = 0; i < 3; i += 1) await t.http.post('/v1/sessions').set(admin).expect(201);
    const first = await t.http.get('/v1/admin/sessions?limit=1').set(admin).expect(200);
    const cursor = first.body.next_cursor as string;
    await t.http.get(`/v1/admin/sessions?limit=1&cursor=${cursor}`).set(admin).expect(200);
    // An attacker reads the cursor (base64url JSON), moves its position, encodes it again and
    // keeps whatever else came with it.
    const dot = cursor.indexOf('.');
    const [text, rest] = dot < 0 ? [cursor, ''] : [cursor.slice(0, dot), cursor.slice(dot)];
    const position = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as string[];
    const edits = [
      [position[0], '9999-12-31T23:59:59.999Z', ...position.slice(2)],
      [...position.slice(0, 2), 'ffffffff-ffff-4fff-bfff-ffffffffffff'],
    ];
    for (const edited of edits) {
      const forged = `${Buffer.from(JSON.stringify(edited)).toString('base64url')}${rest}`;
      expectProblem(await t.http.get(`/v1/admin/sessions?limit=1&cursor=${forged}`).set(admin), 400, 'invalid_field', { field: 'cursor' });
    }
    // Nor is the position alone, without its seal.
    if (rest)
      expectProblem(await t.http.get(`/v1/admin/sessions?limit=1&cursor=${text}`).set(admin), 400, 'invalid_field', { field: 'cursor' });
  });

  it('takes a cursor another node gave out when both have the admin token, and refuses it under another', async () => {
    const same = await createHttpTestApp();
    const other = await createHttpTestApp({ adminToken: 'another-admin-token-0123456789abcdef' });
    try {
      for (let i = 0; i < 2; i += 1) await same.http.post('/v1/sessions').set(admin).expect(201);
      const cursor = (await same.http.get('/v1/admin/sessions?limit=1').set(admin).expect(200)).body.next_cursor as string;
      await t.http.get(`/v1/admin/sessions?limit=1&cursor=${cursor}`).set(admin).expect(200);
      expectProblem(
        await other.http.get(`/v1/admin/sessions?limit=1&cursor=${cursor}`).set(bearer('another-admin-token-0123456789abcdef')),
        400,
        'invalid_field',
        { field: 'cursor' },
      );
    } finally {
      await same.close();
      await other.close();
    }
  });

  it('says them on every answer outside /v1 as well: /healthz, /metrics, 404 and 405 anywhere (issue 48)', async () => {
    const answers = [
      await t.http.get('/healthz').expect(200),
      await t.http.get('/metrics').expect(200),
      await t.http.get('/no-such-page').expect(404),
      await t.http.get('/v1/no-such-route').set(admin).expect(404),
      await t.http.delete('/healthz').expect(405),
      await t.http.post('/metrics').expect(405),
      await t.http.put('/v1/sessions').set(admin).expect(405),
    ];
    for (const answer of answers) {
      const { method, url } = answer.request as unknown as { method: string; url: string };
      expect({ method, url, status: answer.status, headers: answer.headers }).toEqual({
        method,
        url,
        status: answer.status,
        headers: expect.objectContaining({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }),
      });
    }
  });

  it('leaves the console its own Cache-Control: its page revalidated, its hashed assets kept; nosniff on both', async () => {
    const page = await t.http.get('/console').expect(200);
    expect(page.headers).toEqual(expect.objectContaining({ 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }));
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page.text)![1]!;
    const asset = await t.http.get(script).expect(200);
    expect(asset.headers).toEqual(
      expect.objectContaining({ 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' }),
    );
  });
});

describe('the OpenAPI pages (issue 36)', () => {
  const paths = ['/docs', '/docs-json', '/docs-yaml'];

  it('are off unless PN_API_DOCS=on: 404 on /docs, /docs-json and /docs-yaml', async () => {
    expect(serverConfigFromEnv({}).apiDocs).toBe(false);
    const t = await createHttpTestApp();
    try {
      for (const path of paths) expectProblem(await t.http.get(path), 404, 'not_found');
    } finally {
      await t.close();
    }
  });

  it('are served with the console’s security headers when on', async () => {
    const t = await createHttpTestApp({ apiDocs: serverConfigFromEnv({ PN_API_DOCS: 'on' }).apiDocs });
    try {
      for (const path of [...paths, '/docs/swagger-ui-init.js']) {
        const answer = await t.http.get(path).redirects(1);
        expect({ path, status: answer.status }).toEqual({ path, status: 200 });
        expect({ path, headers: answer.headers }).toEqual({
          path,
          headers: expect.objectContaining({
            'content-security-policy': expect.stringMatching(/default-src 'self'.*frame-ancestors 'none'/),
            'x-frame-options': 'DENY',
            'x-content-type-options': 'nosniff',
          }),
        });
      }
    } finally {
      await t.close();
    }
  });
});

describe('event streams of the admin token (issue 36)', () => {
  it('never take a session’s own places: 17 console streams open, the session token still gets its stream', async () => {
    const t = await createHttpTestApp();
    const streams: SseConnection[] = [];
    try {
      const { sessionId, token } = await openSessionWithLoop(t);
      const events = `${t.url}/v1/sessions/${sessionId}/events`;
      for (let i = 0; i < 17; i += 1) {
        const stream = await openSse(events, admin);
        streams.push(stream);
        expect(stream.status).toBe(200);
      }
      const own = await openSse(events, bearer(token));
      streams.push(own);
      expect(own.status).toBe(200);
    } finally {
      for (const stream of streams) stream.close();
      await t.close();
    }
  });

  it('have a bound of their own, PN_MAX_ADMIN_STREAMS, over every session of the node', async () => {
    const t = await createHttpTestApp({ maxAdminStreams: 2, maxStreamsPerSession: 1 });
    const streams: SseConnection[] = [];
    try {
      const one = await openSessionWithLoop(t);
      const two = await openSessionWithLoop(t);
      for (const sessionId of [one.sessionId, two.sessionId])
        streams.push(await openSse(`${t.url}/v1/sessions/${sessionId}/events`, admin));
      expect(streams.map((stream) => stream.status)).toEqual([200, 200]);
      const refused = await t.http.get(`/v1/sessions/${one.sessionId}/events`).set(admin);
      expectProblem(refused, 429, 'stream_limit_reached');
      // The session's own token still has its one.
      const own = await openSse(`${t.url}/v1/sessions/${one.sessionId}/events`, bearer(one.token));
      streams.push(own);
      expect(own.status).toBe(200);
    } finally {
      for (const stream of streams) stream.close();
      await t.close();
    }
  });
});

describe('request ids (issue 36)', () => {
  it('keeps a client’s X-Request-Id apart: echoed, logged as client_request_id, never the line’s request_id', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const config = { ...serverConfigFromEnv({}), databaseUrl: 'sqlite::memory:', adminToken: ADMIN_TOKEN, adminTokenGenerated: false };
    const app = await createServerApp(config, { logger: pino({ level: 'info' }, sink) });
    await app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    try {
      const chosen = 'another-request-id-1234';
      const answer = await rawRequest(url, 'POST', '/v1/sessions', { ...admin, 'x-request-id': chosen });
      expect(answer.status).toBe(201);
      expect(answer.headers['x-request-id']).toBe(chosen);
      // Unusable ids (spaces, too long) are neither echoed nor logged.
      const spaced = await rawRequest(url, 'GET', '/healthz', { 'x-request-id': 'a b' });
      const long = await rawRequest(url, 'GET', '/healthz', { 'x-request-id': 'x'.repeat(129) });
      // A client posing as a node: its id is not the line's either.
      const posing = await rawRequest(url, 'GET', '/healthz', { 'pn-forwarded-by': 'n', 'pn-forwarding-request-id': chosen });
      await app.close();
      const requestLines = lines.filter((line) => line.msg === 'request completed');
      expect(requestLines).toHaveLength(4);
      const [created, ...others] = requestLines;
      expect(created).toMatchObject({
        route: '/v1/sessions',
        status: 201,
        client_request_id: chosen,
        request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      for (const line of requestLines) expect(line.request_id).not.toBe(chosen);
      expect(others.map((line) => line.client_request_id)).toEqual([undefined, undefined, undefined]);
      expect([spaced, long].map((a) => a.headers['x-request-id'])).toEqual([others[0]!.request_id, others[1]!.request_id]);
      expect(posing.headers['x-request-id']).toBe(others[2]!.request_id);
    } finally {
      await app.close();
    }
  });
});
