import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import {
  BadAnswerError,
  MAX_BODY_BYTES,
  MAX_DELIVERY_BATCH,
  ProblemError,
  ProcessNotificationsClient,
  type ProcessCompletionNotification,
} from 'process-notifications-client';
import { ADMIN_TOKEN, admin, bearer, createHttpTestApp, notification, type HttpTestApp } from '../e2e/support/http-test-app.js';

// The batch delivery, POST /v1/sessions/:sid/process-completions/batch, and the client's
// coalescing of the deliveries of one session issued together (issue 46: a request per completion
// was most of the client's CPU and a third of its requests' server work).

const CAPACITY = 4;

// A new completion of the loop, as a program would deliver it through the client.
function completionOf(sessionId: string, loopId: string, overrides: { process_handle?: string } = {}): ProcessCompletionNotification {
  return {
    command_id: randomUUID(),
    session_id: sessionId,
    loop_id: loopId,
    process_handle: 'job',
    state: 'exited',
    reason: 'exited',
    ...overrides,
  };
}

interface Answered {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

// What the single route answers, in the batch's terms: the headers that concern the notification.
const WATCHED_HEADERS = ['retry-after', 'idempotent-replayed'];
function answeredOf(response: { status: number; headers: Record<string, string>; body: unknown }): Answered {
  const headers = Object.fromEntries(
    WATCHED_HEADERS.filter((name) => response.headers[name] !== undefined).map((name) => [name, response.headers[name]!]),
  );
  return { status: response.status, headers, body: response.body };
}

describe('batch delivery against the real server', () => {
  let server: HttpTestApp;
  beforeAll(async () => {
    server = await createHttpTestApp({ loopCapacity: CAPACITY });
  });
  afterAll(() => server.close());

  // A session with three loops: one that takes everything, one full, one stopped.
  async function session() {
    const created = await server.http.post('/v1/sessions').set(admin).send({}).expect(201);
    const sessionId = created.body.session_id as string;
    const auth = bearer(created.body.token as string);
    const open = async () =>
      (await server.http.post(`/v1/sessions/${sessionId}/loops`).set(auth).send({}).expect(201)).body.loop_id as string;
    const [open1, full, stopped] = [await open(), await open(), await open()];
    await server.http.post(`/v1/sessions/${sessionId}/loops/${stopped}/stop`).set(auth).send({}).expect(200);
    return { sessionId, auth, loops: { open: open1, full, stopped } };
  }

  it('answers each notification with the status, headers and body the single route answers it with', async () => {
    // Twin sessions in the same state: one gets the notifications one by one on the single route,
    // the other in one batch. Ids are the same in both (an id is unique per session).
    const twins = [await session(), await session()];
    const ids = { retried: randomUUID(), collided: randomUUID(), fresh: randomUUID(), fresh2: randomUUID(), full: randomUUID() };
    const shapes = (s: (typeof twins)[number]) => {
      const of = (loopId: string, commandId: string, overrides: Record<string, unknown> = {}) =>
        notification(s.sessionId, loopId, { command_id: commandId, ...overrides });
      return {
        before: [
          of(s.loops.open, ids.retried),
          of(s.loops.open, ids.collided),
          ...Array.from({ length: CAPACITY }, () => of(s.loops.full, randomUUID())),
        ],
        sent: [
          of(s.loops.open, ids.fresh),
          of(s.loops.open, ids.retried),
          of(s.loops.open, ids.collided, { process_handle: 'another' }),
          of(s.loops.full, ids.full),
          of(s.loops.stopped, randomUUID()),
          of(randomUUID(), randomUUID()),
          of(s.loops.open, randomUUID(), { state: 'nope' }),
          of(s.loops.open, randomUUID(), { extra: 1 }),
          { ...of(s.loops.open, randomUUID()), session_id: twins.find((other) => other !== s)!.sessionId },
          'not an object',
          of(s.loops.open, ids.fresh2),
        ],
      };
    };
    for (const s of twins) {
      for (const before of shapes(s).before)
        await server.http.post(`/v1/sessions/${s.sessionId}/process-completions`).set(s.auth).send(before);
    }
    const [alone, together] = twins as [(typeof twins)[0], (typeof twins)[0]];
    const single: Answered[] = [];
    for (const body of shapes(alone).sent) {
      const response = await server.http
        .post(`/v1/sessions/${alone.sessionId}/process-completions`)
        .set(alone.auth)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(body));
      single.push(answeredOf(response as never));
    }
    const batch = await server.http
      .post(`/v1/sessions/${together.sessionId}/process-completions/batch`)
      .set(together.auth)
      .send({ notifications: shapes(together).sent })
      .expect(200);
    const results = batch.body.results as Answered[];

    // The same answers but for each session's own ids and sequences.
    const normal = (answers: readonly Answered[], s: (typeof twins)[number]): unknown =>
      JSON.parse(
        JSON.stringify(answers)
          .replaceAll(s.sessionId, 'SESSION')
          .replaceAll(s.loops.open, 'OPEN')
          .replaceAll(s.loops.full, 'FULL')
          .replaceAll(s.loops.stopped, 'STOPPED')
          .replace(/"sequence":\d+/g, '"sequence":"N"')
          .replace(/sequence \d+/g, 'sequence N'),
      );
    // The loop ids nobody opened, and the other session named in the body, differ by construction.
    const unknownLoop = (answers: readonly Answered[]) => JSON.stringify(answers[5]).match(/[0-9a-f-]{36}/g) ?? [];
    expect(unknownLoop(results)).toHaveLength(unknownLoop(single).length);
    const masked = (answers: readonly Answered[], s: (typeof twins)[number]) =>
      (normal(answers, s) as Answered[]).map((answer, i) =>
        i === 5 || i === 8 ? { ...answer, body: { ...(answer.body as object), detail: 'masked' } } : answer,
      );
    expect(masked(results, together)).toEqual(masked(single, alone));

    expect(results.map((result) => result.status)).toEqual([202, 200, 422, 503, 503, 404, 400, 400, 403, 400, 202]);
    expect(results[1]).toMatchObject({ headers: { 'idempotent-replayed': 'true' }, body: { disposition: 'duplicate', appended: false } });
    expect(results[3]).toMatchObject({ headers: { 'retry-after': '1' }, body: { code: 'delivery_stopped', cause: 'inbox_full' } });
    expect(results[4]).toMatchObject({ headers: { 'retry-after': '60' }, body: { code: 'delivery_stopped', cause: 'loop_stopped' } });
    // What was journaled is what the single route journaled: the pending sets match.
    const pending = async (s: (typeof twins)[number]) =>
      (
        (await server.http.get(`/v1/sessions/${s.sessionId}/loops/${s.loops.open}/process-notifications`).set(s.auth).expect(200)).body
          .notifications as Array<{ command_id: string }>
      ).map((n) => n.command_id);
    expect(await pending(together)).toEqual(await pending(alone));
    expect(await pending(together)).toEqual([ids.retried, ids.collided, ids.fresh, ids.fresh2]);
  });

  it(`takes 1 to ${MAX_DELIVERY_BATCH} notifications and nothing else as its body, within the body limit`, async () => {
    const s = await session();
    const path = `/v1/sessions/${s.sessionId}/process-completions/batch`;
    const post = (body: unknown) =>
      server.http
        .post(path)
        .set(s.auth)
        .send(body as object);
    const invalid = { code: 'invalid_field' };
    // No body is `{}`, as for every route's closed schema: no notifications.
    expect((await server.http.post(path).set(s.auth).expect(400)).body).toMatchObject({
      ...invalid,
      field: 'notifications',
      detail: 'notifications must be an array',
    });
    expect((await post({ notifications: [] }).expect(400)).body).toMatchObject({ ...invalid, field: 'notifications' });
    const many = Array.from({ length: MAX_DELIVERY_BATCH + 1 }, () => ({}));
    expect((await post({ notifications: many }).expect(400)).body).toMatchObject({ ...invalid, field: 'notifications' });
    expect((await post({ notifications: {} }).expect(400)).body).toMatchObject(invalid);
    expect((await post({ notifications: [notification(s.sessionId, s.loops.open)], more: 1 }).expect(400)).body).toMatchObject({
      ...invalid,
      field: 'more',
    });
    const large = Array.from({ length: MAX_DELIVERY_BATCH }, () =>
      notification(s.sessionId, s.loops.open, { process_handle: 'h'.repeat(128) }),
    );
    const padded = { notifications: large.map((n) => ({ ...n, pad: 'x'.repeat(400) })) };
    expect(JSON.stringify(padded).length).toBeGreaterThan(MAX_BODY_BYTES);
    expect((await post(padded).expect(413)).body).toMatchObject({ code: 'payload_too_large' });
    await server.http
      .post(path)
      .send({ notifications: [notification(s.sessionId, s.loops.open)] })
      .expect(401);
    // Nothing of the refused requests was journaled.
    const pending = await server.http
      .get(`/v1/sessions/${s.sessionId}/loops/${s.loops.open}/process-notifications`)
      .set(s.auth)
      .expect(200);
    expect(pending.body.notifications).toEqual([]);
  });
});

describe('the client coalesces the deliveries of a session issued together', () => {
  let server: HttpTestApp;
  beforeAll(async () => {
    server = await createHttpTestApp({ loopCapacity: 1000 });
  });
  afterAll(() => server.close());

  // A session's client whose requests are recorded (method and path).
  async function recorded(options: { coalesceDeliveries?: boolean } = {}) {
    const adminClient = new ProcessNotificationsClient({ baseUrl: server.url, token: ADMIN_TOKEN });
    const session = await adminClient.createSession();
    const requests: string[] = [];
    const client = new ProcessNotificationsClient({
      baseUrl: server.url,
      token: session.token,
      ...options,
      fetch: (input, init) => {
        requests.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname.replace(session.session_id, 'SID')}`);
        return fetch(input, init);
      },
    });
    const { loop_id: loopId } = await client.openLoop(session.session_id);
    requests.length = 0;
    const completion = (overrides: { process_handle?: string } = {}) => completionOf(session.session_id, loopId, overrides);
    return { client, requests, sessionId: session.session_id, loopId, completion };
  }

  it('sends calls of the same turn as one batch, each answered as if alone (a collision among them its own)', async () => {
    const { client, requests, sessionId, loopId, completion } = await recorded();
    const first = completion();
    await client.deliverCompletion(first);
    expect(requests).toEqual(['POST /v1/sessions/SID/process-completions']);
    requests.length = 0;
    const sent = Array.from({ length: 10 }, () => completion());
    const calls = [
      ...sent.map((n) => client.deliverCompletion(n)),
      client.deliverCompletion(first),
      client.deliverCompletion({ ...first, process_handle: 'another' }),
    ];
    const settled = await Promise.allSettled(calls);
    expect(requests).toEqual(['POST /v1/sessions/SID/process-completions/batch']);
    const delivered = settled
      .slice(0, 10)
      .map((result) => (result as PromiseFulfilledResult<{ command_id: string; disposition: string }>).value);
    expect(delivered.map((d) => [d.command_id, d.disposition])).toEqual(sent.map((n) => [n.command_id, 'accepted']));
    expect(settled[10]).toMatchObject({ status: 'fulfilled', value: { disposition: 'duplicate', appended: false } });
    expect(settled[11]).toMatchObject({ status: 'rejected', reason: expect.any(ProblemError) });
    expect((settled[11] as PromiseRejectedResult).reason).toMatchObject({ status: 422, code: 'idempotency_collision' });
    const pending = await client.pendingNotifications(sessionId, loopId);
    expect(pending.notifications.map((n) => n.command_id)).toEqual([first.command_id, ...sent.map((n) => n.command_id)]);
  });

  it(`keeps a batch within ${MAX_DELIVERY_BATCH} notifications, and sends what gathers while one is on its way in the next`, async () => {
    const { client, requests, completion } = await recorded();
    const sent = Array.from({ length: MAX_DELIVERY_BATCH * 2 + 5 }, () => completion());
    const answers = await Promise.all(sent.map((n) => client.deliverCompletion(n)));
    expect(answers.map((answer) => answer.command_id)).toEqual(sent.map((n) => n.command_id));
    expect(requests).toEqual(Array.from({ length: 3 }, () => 'POST /v1/sessions/SID/process-completions/batch'));
  });

  it('sends each call alone with coalesceDeliveries: false, or with its own signal, deadline or onRetry', async () => {
    const off = await recorded({ coalesceDeliveries: false });
    await Promise.all([off.client.deliverCompletion(off.completion()), off.client.deliverCompletion(off.completion())]);
    expect(off.requests).toEqual(Array.from({ length: 2 }, () => 'POST /v1/sessions/SID/process-completions'));
    const on = await recorded();
    await Promise.all([
      on.client.deliverCompletion(on.completion(), { signal: new AbortController().signal }),
      on.client.deliverCompletion(on.completion(), { deadlineMs: 10_000 }),
      on.client.deliverCompletion(on.completion(), { onRetry: () => undefined }),
    ]);
    expect(on.requests).toEqual(Array.from({ length: 3 }, () => 'POST /v1/sessions/SID/process-completions'));
  });
});

/** A server of the contract's routes in front of the real one, but for what `answer` says about a batch request. */
class FrontServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    /** The paths of the requests it got, the session id as `SID`. */
    readonly paths: string[],
  ) {}

  static async start(
    backend: string,
    answer: (sent: Array<{ command_id: string }>, response: ServerResponse) => boolean,
  ): Promise<FrontServer> {
    const paths: string[] = [];
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        paths.push(request.url!.replace(/[0-9a-f-]{36}/, 'SID'));
        if (request.url!.endsWith('/batch')) {
          const sent = (JSON.parse(body.toString()) as { notifications: Array<{ command_id: string }> }).notifications;
          if (answer(sent, response)) return;
        }
        void fetch(`${backend}${request.url}`, {
          method: request.method,
          headers: request.headers as Record<string, string>,
          body: request.method === 'GET' ? undefined : body,
        }).then(async (forwarded) => {
          response.writeHead(forwarded.status, Object.fromEntries(forwarded.headers));
          response.end(Buffer.from(await forwarded.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FrontServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('the client against a server whose batch route is missing or hostile', () => {
  let server: HttpTestApp;
  beforeAll(async () => {
    server = await createHttpTestApp({ loopCapacity: 1000 });
  });
  afterAll(() => server.close());

  async function through(answer: (sent: Array<{ command_id: string }>, response: ServerResponse) => boolean) {
    const front = await FrontServer.start(server.url, answer);
    const session = await new ProcessNotificationsClient({ baseUrl: server.url, token: ADMIN_TOKEN }).createSession();
    const client = new ProcessNotificationsClient({ baseUrl: front.url, token: session.token, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const { loop_id: loopId } = await client.openLoop(session.session_id);
    front.paths.length = 0;
    const completion = () => completionOf(session.session_id, loopId);
    return { front, client, completion, sessionId: session.session_id, loopId };
  }

  it('delivers every call alone once the batch route answers 404 (a server of the contract alone), and asks it no more', async () => {
    const { front, client, completion, sessionId, loopId } = await through((_sent, response) => {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
      return true;
    });
    try {
      const first = Array.from({ length: 4 }, () => completion());
      await expect(Promise.all(first.map((n) => client.deliverCompletion(n)))).resolves.toHaveLength(4);
      const second = Array.from({ length: 4 }, () => completion());
      await expect(Promise.all(second.map((n) => client.deliverCompletion(n)))).resolves.toHaveLength(4);
      expect(front.paths).toEqual([
        '/v1/sessions/SID/process-completions/batch',
        ...Array.from({ length: 8 }, () => '/v1/sessions/SID/process-completions'),
      ]);
      const pending = await new ProcessNotificationsClient({ baseUrl: server.url, token: ADMIN_TOKEN }).pendingNotifications(
        sessionId,
        loopId,
      );
      // Sent at once, so in any order.
      expect(pending.notifications.map((n) => n.command_id).sort()).toEqual([...first, ...second].map((n) => n.command_id).sort());
    } finally {
      await front.close();
    }
  });

  it.each([
    [
      'results of another length',
      (count: number) => JSON.stringify({ results: Array.from({ length: count - 1 }, () => ({ status: 202, headers: {}, body: {} })) }),
    ],
    [
      'a result without a status',
      (count: number) => JSON.stringify({ results: Array.from({ length: count }, () => ({ headers: {}, body: {} })) }),
    ],
    [
      'a result whose body is not an object',
      (count: number) => JSON.stringify({ results: Array.from({ length: count }, () => ({ status: 202, headers: {}, body: 'x' })) }),
    ],
    ['no results', () => JSON.stringify({})],
    ['not JSON', () => '{"results": ['],
  ])('rejects every call of a batch answered with %s as answer_not_json, and nothing escapes', async (_name, body) => {
    const { front, client, completion } = await through((sent, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(body(sent.length));
      return true;
    });
    try {
      const settled = await Promise.allSettled(Array.from({ length: 3 }, () => client.deliverCompletion(completion())));
      for (const result of settled) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(BadAnswerError);
        expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'answer_not_json' });
      }
    } finally {
      await front.close();
    }
  });

  it("retries a notification its result says to retry (503 with Retry-After), alone, while the others' stand", async () => {
    let batches = 0;
    const { front, client, completion, sessionId, loopId } = await through((sent, response) => {
      if (batches++ > 0) return false;
      const results = sent.map((notification, i) =>
        i === 0
          ? {
              status: 503,
              headers: { 'retry-after': '0' },
              body: { type: 'about:blank', title: 'Journal unavailable', status: 503, detail: 'down', code: 'journal_unavailable' },
            }
          : {
              status: 202,
              headers: {},
              body: { disposition: 'accepted', command_id: notification.command_id, sequence: 1, appended: true },
            },
      );
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      return true;
    });
    try {
      const sent = Array.from({ length: 3 }, () => completion());
      const answers = await Promise.all(sent.map((n) => client.deliverCompletion(n)));
      expect(answers[0]).toMatchObject({ command_id: sent[0]!.command_id, disposition: 'accepted' });
      expect(front.paths).toEqual(['/v1/sessions/SID/process-completions/batch', '/v1/sessions/SID/process-completions']);
      const pending = await new ProcessNotificationsClient({ baseUrl: server.url, token: ADMIN_TOKEN }).pendingNotifications(
        sessionId,
        loopId,
      );
      // Only the retried one reached the real server: the fake batch answered the others.
      expect(pending.notifications.map((n) => n.command_id)).toEqual([sent[0]!.command_id]);
    } finally {
      await front.close();
    }
  });
});
