import type { Response } from 'supertest';
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
import { openSse } from './support/sse-client.js';

/** The session a request is made for: one native loop holding one pending notification. */
interface Target {
  readonly sessionId: string;
  readonly loopId: string;
  readonly token: string;
  readonly pendingCommandId: string;
}

interface Route {
  readonly method: 'get' | 'post';
  /** The path as the OpenAPI document spells it. */
  readonly template: string;
  /** Success status of the §8 route table. */
  readonly success: number;
  readonly path: (target: Target) => string;
  readonly body?: (target: Target) => Record<string, unknown>;
  /**
   * What it answers on a closed session with the admin token: a read its success, a write 409
   * `session_closed`, a batch write its success with 409 `session_closed` for each item.
   */
  readonly onClosed: 'read' | 'write' | 'idempotent' | 'batch write';
}

// Every route of the §8 table that takes a session (`:sid`), with the status it answers on success.
const ROUTES: readonly Route[] = [
  { method: 'get', template: '/v1/sessions/{sid}', success: 200, path: (s) => `/v1/sessions/${s.sessionId}`, onClosed: 'read' },
  {
    method: 'post',
    template: '/v1/sessions/{sid}/loops',
    success: 201,
    path: (s) => `/v1/sessions/${s.sessionId}/loops`,
    body: () => ({}),
    onClosed: 'write',
  },
  {
    method: 'get',
    template: '/v1/sessions/{sid}/loops/{lid}',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/loops/${s.loopId}`,
    onClosed: 'read',
  },
  {
    method: 'post',
    template: '/v1/sessions/{sid}/loops/{lid}/stop',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/loops/${s.loopId}/stop`,
    onClosed: 'write',
  },
  {
    method: 'post',
    template: '/v1/sessions/{sid}/process-completions',
    success: 202,
    path: (s) => `/v1/sessions/${s.sessionId}/process-completions`,
    body: (s) => notification(s.sessionId, s.loopId),
    onClosed: 'write',
  },
  {
    method: 'post',
    template: '/v1/sessions/{sid}/process-completions/batch',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/process-completions/batch`,
    body: (s) => ({ notifications: [notification(s.sessionId, s.loopId), notification(s.sessionId, s.loopId)] }),
    onClosed: 'batch write',
  },
  {
    method: 'post',
    template: '/v1/sessions/{sid}/process-lifecycle',
    success: 201,
    path: (s) => `/v1/sessions/${s.sessionId}/process-lifecycle`,
    body: (s) => lifecycleRecord(s.sessionId, s.loopId),
    onClosed: 'write',
  },
  {
    method: 'get',
    template: '/v1/sessions/{sid}/loops/{lid}/process-notifications',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/loops/${s.loopId}/process-notifications`,
    onClosed: 'read',
  },
  {
    method: 'post',
    template: '/v1/sessions/{sid}/loops/{lid}/process-notifications/{command_id}/consume',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/loops/${s.loopId}/process-notifications/${s.pendingCommandId}/consume`,
    onClosed: 'write',
  },
  {
    method: 'post',
    template: '/v1/sessions/{sid}/loops/{lid}/process-notifications/consume',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/loops/${s.loopId}/process-notifications/consume`,
    body: (s) => ({ command_ids: [s.pendingCommandId] }),
    onClosed: 'write',
  },
  {
    method: 'get',
    template: '/v1/sessions/{sid}/journal',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/journal?after=0&limit=10`,
    onClosed: 'read',
  },
  {
    method: 'get',
    template: '/v1/sessions/{sid}/events',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/events`,
    onClosed: 'read',
  },
  {
    method: 'post',
    template: '/v1/sessions/{sid}/token',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/token`,
    onClosed: 'write',
  },
  {
    method: 'post',
    template: '/v1/sessions/{sid}/close',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/close`,
    onClosed: 'idempotent',
  },
  {
    method: 'get',
    template: '/v1/sessions/{sid}/loops/{lid}/events',
    success: 200,
    path: (s) => `/v1/sessions/${s.sessionId}/loops/${s.loopId}/events`,
    onClosed: 'read',
  },
];

type Credential = 'no token' | 'a wrong token' | "another session's token" | 'the own token' | 'the admin token';

// §8: 401 unauthorized for no or an unknown token, 403 forbidden for another session's token;
// the session's own token and the admin token open the route.
const DENIED: ReadonlyArray<readonly [Credential, number, string]> = [
  ['no token', 401, 'unauthorized'],
  ['a wrong token', 401, 'unauthorized'],
  ["another session's token", 403, 'forbidden'],
];
const ALLOWED: readonly Credential[] = ['the own token', 'the admin token'];

describe('REST API v1: authorisation on every route that takes a session (§8)', () => {
  let t: HttpTestApp;
  beforeAll(async () => {
    t = await createHttpTestApp({ apiDocs: true });
  });
  afterAll(() => t.close());

  /** A fresh session with a loop and one pending notification, and a second session. */
  async function setUp(): Promise<{ target: Target; otherToken: string }> {
    const mine = await openSessionWithLoop(t);
    const pending = notification(mine.sessionId, mine.loopId);
    await t.http.post(`/v1/sessions/${mine.sessionId}/process-completions`).set(admin).send(pending).expect(202);
    const other = await openSessionWithLoop(t);
    return { target: { ...mine, pendingCommandId: String(pending.command_id) }, otherToken: other.token };
  }

  function headersFor(credential: Credential, target: Target, otherToken: string): Record<string, string> {
    switch (credential) {
      case 'no token':
        return {};
      case 'a wrong token':
        return bearer(`${target.token}x`);
      case "another session's token":
        return bearer(otherToken);
      case 'the own token':
        return bearer(target.token);
      case 'the admin token':
        return admin;
    }
  }

  function send(route: Route, target: Target, headers: Record<string, string>): Promise<Response> {
    const request = t.http[route.method](route.path(target)).set(headers);
    return route.body ? request.send(route.body(target)) : request;
  }

  /** What a refused request must leave untouched: the journal, the loop's state and its pending set. */
  async function observable(target: Target): Promise<unknown> {
    const journal = await t.http.get(`/v1/sessions/${target.sessionId}/journal?after=0&limit=1000`).set(admin).expect(200);
    const loop = await t.http.get(`/v1/sessions/${target.sessionId}/loops/${target.loopId}`).set(admin).expect(200);
    const session = await t.http.get(`/v1/sessions/${target.sessionId}`).set(admin).expect(200);
    return { journal: journal.body, loop: loop.body, session: session.body };
  }

  it('covers every route of the API whose path has a session', async () => {
    const document = await t.http.get('/docs-json').expect(200);
    const paths = document.body.paths as Record<string, Record<string, unknown>>;
    const served = Object.entries(paths)
      .filter(([path]) => path.includes('{sid}'))
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`));
    expect(served.sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.template}`).sort());
  });

  const denied = ROUTES.flatMap((route) => DENIED.map(([credential, status, code]) => [route, credential, status, code] as const));
  it.each(
    denied.map(
      ([route, credential, status, code]) => [`${route.method.toUpperCase()} ${route.template}`, credential, status, code, route] as const,
    ),
  )('%s with %s: %i %s, nothing changes', async (_name, credential, status, code, route) => {
    const { target, otherToken } = await setUp();
    const before = await observable(target);
    const response = await send(route, target, headersFor(credential, target, otherToken));
    expectProblem(response, status, code);
    expect(await observable(target)).toEqual(before);
  });

  const allowed = ROUTES.flatMap((route) => ALLOWED.map((credential) => [route, credential] as const));
  it.each(
    allowed.map(([route, credential]) => [`${route.method.toUpperCase()} ${route.template}`, credential, route.success, route] as const),
  )('%s with %s: %i', async (_name, credential, success, route) => {
    const { target, otherToken } = await setUp();
    const headers = headersFor(credential, target, otherToken);
    if (route.template.endsWith('/events')) {
      const stream = await openSse(`${t.url}${route.path(target)}`, headers);
      stream.close();
      expect({ status: stream.status, type: stream.headers['content-type'] }).toEqual({
        status: success,
        type: expect.stringMatching(/^text\/event-stream/),
      });
      return;
    }
    const response = await send(route, target, headers);
    expect({ status: response.status, body: response.body }).toEqual({ status: success, body: expect.any(Object) });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  // Closing: the session's token opens nothing any more, the admin token still reads everything,
  // and every write answers 409 session_closed without changing anything (a close answers again).
  async function closedTarget(): Promise<Target> {
    const { target } = await setUp();
    await t.http.post(`/v1/sessions/${target.sessionId}/close`).set(admin).expect(200);
    return target;
  }

  it.each(ROUTES.map((route) => [`${route.method.toUpperCase()} ${route.template}`, route] as const))(
    '%s of a closed session with its own token: 401 unauthorized, nothing changes',
    async (_name, route) => {
      const target = await closedTarget();
      const before = await observable(target);
      expectProblem(await send(route, target, bearer(target.token)), 401, 'unauthorized');
      expect(await observable(target)).toEqual(before);
    },
  );

  it.each(ROUTES.map((route) => [`${route.method.toUpperCase()} ${route.template}`, route.onClosed, route] as const))(
    '%s of a closed session with the admin token: a %s',
    async (_name, onClosed, route) => {
      const target = await closedTarget();
      const before = await observable(target);
      if (route.template.endsWith('/events')) {
        const stream = await openSse(`${t.url}${route.path(target)}`, admin);
        stream.close();
        expect(stream.status).toBe(route.success);
        return;
      }
      const response = await send(route, target, admin);
      if (onClosed === 'write') expectProblem(response, 409, 'session_closed');
      else expect(response.status).toBe(route.success);
      if (onClosed === 'batch write') {
        const results = (response.body as { results: Array<{ status: number; body: { code: string } }> }).results;
        expect(results.map((result) => [result.status, result.body.code])).toEqual(results.map(() => [409, 'session_closed']));
      }
      expect(await observable(target)).toEqual(before);
    },
  );
});
