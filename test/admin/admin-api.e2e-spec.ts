import type { LoopEngine } from 'process-notifications-contract';
import { tempDir } from '../durability/support/temp-dir.js';
import { expectProblem } from '../e2e/support/problem.js';
import { admin, bearer, createHttpTestApp, lifecycleRecord, notification, type HttpTestApp } from '../e2e/support/http-test-app.js';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { ADMIN_TOKEN } from '../e2e/support/http-test-app.js';
import { ProblemError, ProcessNotificationsClient } from 'process-notifications-client';

// Spec section 12.1 through the real server, on SQLite (a file, so it can restart) and on
// PostgreSQL (a schema of its own per test): every route, filter and paging edge, the counts
// after deliveries, inbox_full refusals, stops, consumes and a restart.
const pgAdmin = await connectPostgresAdmin();

interface Backend {
  readonly name: string;
  /** A database URL of the test's own, and what removes it. */
  create(): Promise<{ databaseUrl: string; remove: () => Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'SQLite',
    create: async () => {
      const dir = tempDir();
      return { databaseUrl: `sqlite:${dir.file('pn.db')}`, remove: async () => dir.remove() };
    },
  },
  ...(pgAdmin
    ? [
        {
          name: 'PostgreSQL',
          create: async () => {
            const schema = freshSchema();
            await pgAdmin.query(`CREATE SCHEMA "${schema.name}"`);
            return {
              databaseUrl: schema.databaseUrl,
              remove: async () => void (await pgAdmin.query(`DROP SCHEMA IF EXISTS "${schema.name}" CASCADE`)),
            };
          },
        },
      ]
    : []),
];

const CAPACITY = 2;
const ADMIN_ROUTES = [
  '/v1/admin/sessions',
  '/v1/admin/loops',
  '/v1/admin/notifications/0192f3a4-5b6c-7d8e-9f01-23456789abcd',
  '/v1/admin/nodes',
  '/v1/admin/refusals',
];

afterAll(async () => {
  await pgAdmin?.destroy();
});

describe.each(BACKENDS)('admin read API on $name', (backend) => {
  let database: { databaseUrl: string; remove: () => Promise<void> };
  let t: HttpTestApp;

  const start = async (): Promise<void> => {
    t = await createHttpTestApp({ databaseUrl: database.databaseUrl, loopCapacity: CAPACITY });
  };
  const restart = async (): Promise<void> => {
    await t.close();
    await start();
  };

  beforeEach(async () => {
    database = await backend.create();
    await start();
  });

  afterEach(async () => {
    await t.close();
    await database.remove();
  });

  const get = async (path: string, expected = 200): Promise<Record<string, unknown>> => {
    const response = await t.http.get(path).set(admin);
    expect({ path, status: response.status, body: response.body as unknown }).toMatchObject({ status: expected });
    return response.body as Record<string, unknown>;
  };

  // The lists are newest first by created_at, in milliseconds, ties broken by the (random) id:
  // two opened within one millisecond would come in either order. Each open waits for the clock
  // to pass the end of the previous one (the app runs in this process, on this clock).
  let lastOpenedAt = 0;
  const opening = async <T>(open: () => Promise<T>): Promise<T> => {
    while (Date.now() <= lastOpenedAt) await new Promise((resolve) => setTimeout(resolve, 1));
    try {
      return await open();
    } finally {
      lastOpenedAt = Date.now();
    }
  };
  const openSession = (): Promise<{ sessionId: string; token: string }> =>
    opening(async () => {
      const { body } = await t.http.post('/v1/sessions').set(admin).expect(201);
      return { sessionId: body.session_id as string, token: body.token as string };
    });
  const openLoop = (sessionId: string, engine: LoopEngine = 'native'): Promise<string> =>
    opening(
      async () => (await t.http.post(`/v1/sessions/${sessionId}/loops`).set(admin).send({ engine }).expect(201)).body.loop_id as string,
    );
  const deliver = (sessionId: string, body: Record<string, unknown>) =>
    t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(admin).send(body);
  const consume = (sessionId: string, loopId: string, commandId: string) =>
    t.http.post(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${commandId}/consume`).set(admin).expect(200);
  const journal = async (sessionId: string): Promise<Array<{ sequence: number; idempotency_id: string; created_at: string }>> =>
    (await get(`/v1/sessions/${sessionId}/journal?limit=1000`)).records as Array<{
      sequence: number;
      idempotency_id: string;
      created_at: string;
    }>;
  const loopsOf = async (query: string): Promise<Array<Record<string, unknown>>> =>
    (await get(`/v1/admin/loops?limit=1000&${query}`)).loops as Array<Record<string, unknown>>;
  const loopIds = async (query: string): Promise<string[]> => (await loopsOf(query)).map((loop) => loop.loop_id as string);

  it('admin routes: 401 without or with an unknown token, 403 with a session token; whoami for any valid token', async () => {
    const { sessionId, token } = await openSession();
    for (const route of ADMIN_ROUTES) {
      expectProblem(await t.http.get(route), 401, 'unauthorized');
      expectProblem(await t.http.get(route).set(bearer('not-a-token')), 401, 'unauthorized');
      expectProblem(await t.http.get(route).set(bearer(token)), 403, 'forbidden');
    }
    await t.http.get('/v1/whoami').set(admin).expect(200, { kind: 'admin', session_id: null });
    await t.http.get('/v1/whoami').set(bearer(token)).expect(200, { kind: 'session', session_id: sessionId });
    expectProblem(await t.http.get('/v1/whoami'), 401, 'unauthorized');
    expectProblem(await t.http.get('/v1/whoami').set(bearer('not-a-token')), 401, 'unauthorized');
  });

  it('pages sessions newest first: first, middle and last page, then bad limits and cursors', async () => {
    const opened: string[] = [];
    for (let i = 0; i < 5; i++) opened.push((await openSession()).sessionId);
    const all = (await get('/v1/admin/sessions')).sessions as Array<{ session_id: string; created_at: string }>;
    expect(all.map((s) => s.session_id)).toEqual([...opened].reverse());
    expect((await get('/v1/admin/sessions')).next_cursor).toBeNull();

    const first = await get('/v1/admin/sessions?limit=2');
    const middle = await get(`/v1/admin/sessions?limit=2&cursor=${first.next_cursor as string}`);
    const last = await get(`/v1/admin/sessions?limit=2&cursor=${middle.next_cursor as string}`);
    const ids = (page: Record<string, unknown>) => (page.sessions as Array<{ session_id: string }>).map((s) => s.session_id);
    expect([ids(first), ids(middle), ids(last)]).toEqual([[opened[4], opened[3]], [opened[2], opened[1]], [opened[0]]]);
    expect(typeof first.next_cursor).toBe('string');
    expect(typeof middle.next_cursor).toBe('string');
    expect(last.next_cursor).toBeNull();
    // Exactly a page's worth left: the page that holds them is the last one.
    const exact = await get(`/v1/admin/sessions?limit=3&cursor=${first.next_cursor as string}`);
    expect([ids(exact), exact.next_cursor]).toEqual([[opened[2], opened[1], opened[0]], null]);

    for (const limit of ['0', '1001', '-1', 'x', '1.5', '', '10&limit=20']) {
      expectProblem(await t.http.get(`/v1/admin/sessions?limit=${limit}`).set(admin), 400, 'invalid_field', { field: 'limit' });
    }
    const loopsCursor = (await get(`/v1/admin/loops?limit=1`)).next_cursor;
    for (const cursor of [
      'nonsense',
      '',
      'e30',
      `${first.next_cursor as string}x`,
      Buffer.from('["sessions","x","y"]').toString('base64url'),
    ]) {
      expectProblem(await t.http.get(`/v1/admin/sessions?cursor=${cursor}`).set(admin), 400, 'invalid_field', { field: 'cursor' });
    }
    expect(loopsCursor).toBeNull();
    // A cursor of one list is no cursor of another.
    await openLoop(opened[0]!);
    await openLoop(opened[0]!);
    const loopPage = await get('/v1/admin/loops?limit=1');
    expectProblem(await t.http.get(`/v1/admin/sessions?cursor=${loopPage.next_cursor as string}`).set(admin), 400, 'invalid_field', {
      field: 'cursor',
    });
    expectProblem(await t.http.get(`/v1/admin/loops?cursor=${first.next_cursor as string}`).set(admin), 400, 'invalid_field', {
      field: 'cursor',
    });
  });

  it('pages loops newest first across sessions, and restricts them to one session', async () => {
    const a = await openSession();
    const b = await openSession();
    const opened = [
      await openLoop(a.sessionId),
      await openLoop(b.sessionId),
      await openLoop(a.sessionId, 'foreign'),
      await openLoop(b.sessionId),
    ];
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/v1/admin/loops?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push((page.loops as Array<{ loop_id: string }>).map((loop) => loop.loop_id));
      cursor = page.next_cursor as string | null;
    } while (cursor);
    expect(pages).toEqual([[opened[3], opened[2], opened[1]], [opened[0]]]);
    expect(await loopsOf(`session_id=${a.sessionId.toUpperCase()}`)).toEqual([
      {
        session_id: a.sessionId,
        loop_id: opened[2],
        engine: 'foreign',
        state: 'running',
        capacity: CAPACITY,
        unconsumed: 0,
        oldest_unconsumed_at: null,
      },
      {
        session_id: a.sessionId,
        loop_id: opened[0],
        engine: 'native',
        state: 'running',
        capacity: CAPACITY,
        unconsumed: 0,
        oldest_unconsumed_at: null,
      },
    ]);
    expect(await loopIds('session_id=0192f3a4-5b6c-7d8e-9f01-23456789abcd')).toEqual([]);
    for (const sessionId of ['nope', '00000000-0000-0000-0000-000000000000']) {
      expectProblem(await t.http.get(`/v1/admin/loops?session_id=${sessionId}`).set(admin), 400, 'invalid_field', { field: 'session_id' });
    }
    for (const filter of ['bogus', 'ALL', '']) {
      expectProblem(await t.http.get(`/v1/admin/loops?filter=${filter}`).set(admin), 400, 'invalid_field', { field: 'filter' });
    }
    // older_than_s is checked whenever it is given, whatever the filter.
    for (const query of [
      'older_than_s=0',
      'filter=stale&older_than_s=0',
      'filter=all&older_than_s=x',
      'older_than_s=1.5',
      'older_than_s=-3',
    ]) {
      expectProblem(await t.http.get(`/v1/admin/loops?${query}`).set(admin), 400, 'invalid_field', { field: 'older_than_s' });
    }
    expectProblem(await t.http.get('/v1/admin/loops?limit=0').set(admin), 400, 'invalid_field', { field: 'limit' });
  });

  it('counts after deliveries, inbox_full refusals, stops and consumes, by filter, and the same after a restart', async () => {
    const { sessionId } = await openSession();
    const [full, stopped, idle] = [await openLoop(sessionId), await openLoop(sessionId), await openLoop(sessionId)];
    const toFull = [0, 1, 2].map((i) => notification(sessionId, full, { process_handle: `full-${i}` }));
    expect((await deliver(sessionId, toFull[0]!)).status).toBe(202);
    expect((await deliver(sessionId, toFull[1]!)).status).toBe(202);
    expectProblem(await deliver(sessionId, toFull[2]!), 503, 'delivery_stopped', {
      disposition: 'stopped',
      cause: 'inbox_full',
      loop_id: full,
    });
    const toStopped = notification(sessionId, stopped);
    expect((await deliver(sessionId, toStopped)).status).toBe(202);
    await t.http.post(`/v1/sessions/${sessionId}/loops/${stopped}/stop`).set(admin).expect(200);
    const late = notification(sessionId, stopped, { process_handle: 'late' });
    expectProblem(await deliver(sessionId, late), 503, 'delivery_stopped', {
      disposition: 'stopped',
      cause: 'loop_stopped',
      loop_id: stopped,
    });

    const records = await journal(sessionId);
    const createdAt = (commandId: unknown) => records.find((r) => r.idempotency_id === commandId)!.created_at;
    const row = (loopId: string, state: string, unconsumed: number, oldest: string | null) => ({
      session_id: sessionId,
      loop_id: loopId,
      engine: 'native',
      state,
      capacity: CAPACITY,
      unconsumed,
      oldest_unconsumed_at: oldest,
    });
    const expectLoops = async (fullUnconsumed: number, fullOldest: string | null) => {
      const byFilter = {
        all: await loopsOf('filter=all'),
        unconsumed: await loopIds('filter=unconsumed'),
        full: await loopIds('filter=full'),
        stopped: await loopIds('filter=stopped'),
        stale: await loopIds('filter=stale'),
      };
      expect(byFilter).toEqual({
        all: [
          row(idle, 'running', 0, null),
          row(stopped, 'stopped', 2, createdAt(toStopped.command_id)),
          row(full, 'running', fullUnconsumed, fullOldest),
        ],
        unconsumed: fullUnconsumed > 0 ? [stopped, full] : [stopped],
        // By the letter: unconsumed >= capacity, stopped or not.
        full: fullUnconsumed >= CAPACITY ? [stopped, full] : [stopped],
        stopped: [stopped],
        // Nothing is five minutes old.
        stale: [],
      });
      expect((await get('/v1/admin/sessions')).sessions).toEqual([
        {
          session_id: sessionId,
          created_at: expect.any(String),
          state: 'open',
          closed_at: null,
          loops: 3,
          running_loops: 2,
          unconsumed: fullUnconsumed + 2,
          last_sequence: (await journal(sessionId)).at(-1)!.sequence,
        },
      ]);
    };
    // The refused notification is unconsumed too: journaled, and nobody retried it yet.
    await expectLoops(3, createdAt(toFull[0]!.command_id));

    await consume(sessionId, full, toFull[0]!.command_id as string);
    await expectLoops(2, createdAt(toFull[1]!.command_id));
    // Consuming out of order leaves the oldest where it is.
    await restart();
    await deliver(sessionId, toFull[2]!).expect(200);
    await consume(sessionId, full, toFull[2]!.command_id as string);
    await expectLoops(1, createdAt(toFull[1]!.command_id));
    await consume(sessionId, full, toFull[1]!.command_id as string);
    await expectLoops(0, null);
    // A second consume changes nothing.
    await consume(sessionId, full, toFull[1]!.command_id as string);
    await expectLoops(0, null);

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await loopIds('filter=stale&older_than_s=1')).toEqual([stopped]);
    expect(await loopIds('filter=stale&older_than_s=3600')).toEqual([]);
    await restart();
    await expectLoops(0, null);
    expect(await loopIds('filter=stale&older_than_s=1')).toEqual([stopped]);
  });

  it('counts no running loop in a closed session, on both backends and after a restart', async () => {
    const { sessionId } = await openSession();
    await openLoop(sessionId);
    await openLoop(sessionId);
    const runningOf = async () =>
      ((await get('/v1/admin/sessions')).sessions as Array<Record<string, unknown>>)
        .filter((session) => session.session_id === sessionId)
        .map(({ state, loops, running_loops }) => ({ state, loops, running_loops }));
    expect(await runningOf()).toEqual([{ state: 'open', loops: 2, running_loops: 2 }]);
    await t.http.post(`/v1/sessions/${sessionId}/close`).set(admin).expect(200);
    // Its loops keep their rows, but none of them runs once the session is closed.
    expect(await runningOf()).toEqual([{ state: 'closed', loops: 2, running_loops: 0 }]);
    await restart();
    expect(await runningOf()).toEqual([{ state: 'closed', loops: 2, running_loops: 0 }]);
  });

  it('finds a command id in every session that journaled it; 404 when none did', async () => {
    const a = await openSession();
    const b = await openSession();
    const [loopA, loopB] = [await openLoop(a.sessionId), await openLoop(b.sessionId)];
    const n = notification(a.sessionId, loopA, { process_handle: 'build-1', state: 'failed', reason: 'failed' });
    await deliver(a.sessionId, n).expect(202);
    await deliver(b.sessionId, { ...n, session_id: b.sessionId, loop_id: loopB, state: 'exited', reason: 'exited' }).expect(202);
    const consumed = (await consume(a.sessionId, loopA, n.command_id as string)).body.sequence as number;
    await t.http.post(`/v1/sessions/${b.sessionId}/loops/${loopB}/stop`).set(admin).expect(200);

    // How A's run ended (section 14); B's has no such record.
    const completed = lifecycleRecord(a.sessionId, loopA, {
      kind: 'completed',
      state: 'failed',
      reason: 'failed',
      process_finished_at: '2026-01-01T00:00:02Z',
      diagnostic: 'could not start',
      command_id: n.command_id,
    });
    await t.http.post(`/v1/sessions/${a.sessionId}/process-lifecycle`).set(admin).send(completed).expect(201);

    const sequenceIn = async (sessionId: string) => (await journal(sessionId)).find((r) => r.idempotency_id === n.command_id)!.sequence;
    const [sequenceA, sequenceB] = [await sequenceIn(a.sessionId), await sequenceIn(b.sessionId)];
    const found = await get(`/v1/admin/notifications/${(n.command_id as string).toUpperCase()}`);
    expect(found).toEqual({
      notifications: [
        {
          session_id: a.sessionId,
          loop_id: loopA,
          loop_state: 'running',
          sequence: sequenceA,
          process_handle: 'build-1',
          state: 'failed',
          reason: 'failed',
          created_at: expect.any(String),
          consumed_sequence: consumed,
          outcome: {
            event_id: completed.event_id,
            kind: 'completed',
            has_exit_code: false,
            exit_code: null,
            diagnostic: 'could not start',
            signal: null,
            process_started_at: '2026-01-01T00:00:01Z',
            process_finished_at: '2026-01-01T00:00:02Z',
          },
        },
        {
          session_id: b.sessionId,
          loop_id: loopB,
          loop_state: 'stopped',
          sequence: sequenceB,
          process_handle: 'build-1',
          state: 'exited',
          reason: 'exited',
          created_at: expect.any(String),
          consumed_sequence: null,
          outcome: null,
        },
      ],
      refusals: [],
    });
    expectProblem(await t.http.get('/v1/admin/notifications/0192f3a4-5b6c-7d8e-9f01-23456789abcd').set(admin), 404, 'not_found');
    // A lifecycle record's or a loop's id is not a notification's.
    const record = lifecycleRecord(a.sessionId, loopA);
    await t.http.post(`/v1/sessions/${a.sessionId}/process-lifecycle`).set(admin).send(record).expect(201);
    expectProblem(await t.http.get(`/v1/admin/notifications/${record.event_id as string}`).set(admin), 404, 'not_found');
    expectProblem(await t.http.get('/v1/admin/notifications/not-a-uuid').set(admin), 400, 'invalid_field', { field: 'command_id' });
  });

  it('lists refusals newest first, with ids only, bounded by limit', async () => {
    const { sessionId, token } = await openSession();
    const other = await openSession();
    const [loopId, foreign] = [await openLoop(sessionId), await openLoop(sessionId, 'foreign')];
    const auth = bearer(token);
    const post = (path: string, body: unknown) =>
      t.http
        .post(`/v1/sessions/${sessionId}/${path}`)
        .set(auth)
        .send(body as object);
    const sent = notification(sessionId, loopId);
    const original = (await post('process-completions', sent).expect(202)).body as { sequence: number };
    await post('process-completions', notification(sessionId, loopId)).expect(202);
    const collision = { ...sent, process_handle: 'other' };
    await post('process-completions', collision).expect(422);
    const overflow = notification(sessionId, loopId);
    await post('process-completions', overflow).expect(503);
    const mismatch = notification(other.sessionId, loopId);
    await post('process-completions', mismatch).expect(403);
    const noLoop = notification(sessionId, '0192f3a4-5b6c-7d8e-9f01-23456789abcd');
    // The path's session id in upper case: the refusal names it as the route took it, lower-cased.
    await t.http.post(`/v1/sessions/${sessionId.toUpperCase()}/process-completions`).set(auth).send(noLoop).expect(404);
    const toForeign = notification(sessionId, foreign);
    await post('process-completions', toForeign).expect(409);
    const record = lifecycleRecord(sessionId, loopId);
    const recorded = (await post('process-lifecycle', record).expect(201)).body as { sequence: number };
    await post('process-lifecycle', { ...record, process_handle: 'other' }).expect(422);
    const foreignRecord: Record<string, unknown> = { ...lifecycleRecord(other.sessionId, loopId), secret: token };
    await post('process-lifecycle', foreignRecord).expect(403);
    // Not refusals: bad input (the library's validation, the body's pipe), and answers of other
    // routes.
    await post('process-completions', { ...notification(sessionId, loopId), state: 'nope' }).expect(400);
    await t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).set(auth).type('application/json').send('{"kind":').expect(400);
    await t.http.get(`/v1/sessions/${other.sessionId}`).set(auth).expect(403);

    const { refusals } = (await get('/v1/admin/refusals')) as { refusals: Array<Record<string, unknown>> };
    const refusal = (code: string, fields: Record<string, unknown>) => ({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      code,
      session_id: sessionId,
      loop_id: null,
      command_id: null,
      event_id: null,
      cause: null,
      original_sequence: null,
      differing_fields: null,
      node_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ...fields,
    });
    expect(refusals).toEqual([
      refusal('owner_mismatch', { loop_id: loopId, event_id: foreignRecord.event_id }),
      refusal('idempotency_collision', {
        loop_id: loopId,
        event_id: record.event_id,
        original_sequence: recorded.sequence,
        differing_fields: ['process_handle'],
      }),
      refusal('unsupported_engine', { loop_id: foreign, command_id: toForeign.command_id }),
      refusal('loop_not_found', { loop_id: noLoop.loop_id, command_id: noLoop.command_id }),
      refusal('owner_mismatch', { loop_id: loopId, command_id: mismatch.command_id }),
      refusal('delivery_stopped', { loop_id: loopId, command_id: overflow.command_id, cause: 'inbox_full' }),
      refusal('idempotency_collision', {
        loop_id: loopId,
        command_id: sent.command_id,
        original_sequence: original.sequence,
        differing_fields: ['process_handle'],
      }),
    ]);
    expect(JSON.stringify(refusals)).not.toContain(token);
    expect(((await get('/v1/admin/refusals?limit=2')).refusals as unknown[]).length).toBe(2);

    // The search for the collided id shows its refusal beside the original; one never
    // journaled (a loop that does not exist) is 404 (spec section 12.1), listed among the refusals.
    const search = await get(`/v1/admin/notifications/${sent.command_id as string}`);
    expect((search.notifications as Array<{ sequence: number }>).map((n) => n.sequence)).toEqual([original.sequence]);
    expect(search.refusals).toEqual([refusals.at(-1)]);
    expectProblem(await t.http.get(`/v1/admin/notifications/${noLoop.command_id as string}`).set(admin), 404, 'not_found');
    expect(refusals[3]).toMatchObject({ command_id: noLoop.command_id });

    // Kept in the database: a restart lists the same refusals.
    await restart();
    expect((await get('/v1/admin/refusals')).refusals).toEqual(refusals);
    expectProblem(await t.http.get('/v1/admin/refusals?limit=1001').set(admin), 400, 'invalid_field', { field: 'limit' });
  });

  it('lists the nodes: this one, owning the sessions it serves', async () => {
    const a = await openSession();
    await openSession();
    // Owned once something of the session's own is asked (on SQLite every session is).
    await t.http.get(`/v1/sessions/${a.sessionId}`).set(admin).expect(200);
    const { nodes } = (await get('/v1/admin/nodes')) as { nodes: Array<Record<string, unknown>> };
    if (backend.name === 'SQLite') {
      expect(nodes).toEqual([
        { node_id: expect.stringMatching(/^[0-9a-f-]{36}$/), node_url: t.url, live: true, last_heartbeat_at: null, sessions: 2 },
      ]);
    } else {
      expect(nodes).toEqual([
        {
          node_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          node_url: expect.any(String),
          live: true,
          last_heartbeat_at: expect.stringMatching(/^\d{4}-/),
          sessions: 1,
        },
      ]);
      expect(Date.now() - Date.parse(nodes[0]!.last_heartbeat_at as string)).toBeLessThan(60_000);
    }
  });

  it('the typed client reads every admin route, and whoami with either token', async () => {
    const { sessionId, token } = await openSession();
    const loopId = await openLoop(sessionId);
    const sent = notification(sessionId, loopId);
    await deliver(sessionId, sent).expect(202);
    const client = new ProcessNotificationsClient({ baseUrl: t.url, token: ADMIN_TOKEN });
    const sessions = await client.adminSessions({ limit: 1 });
    expect(sessions).toEqual({ sessions: [expect.objectContaining({ session_id: sessionId, unconsumed: 1 })], next_cursor: null });
    const loops = await client.adminLoops({ filter: 'unconsumed', session_id: sessionId, older_than_s: 60 });
    expect(loops.loops.map((loop) => [loop.loop_id, loop.unconsumed])).toEqual([[loopId, 1]]);
    const found = await client.findNotification(sent.command_id as string);
    expect(found.notifications.map((n) => [n.session_id, n.consumed_sequence])).toEqual([[sessionId, null]]);
    expect((await client.nodes()).nodes).toHaveLength(1);
    expect(await client.refusals({ limit: 5 })).toEqual({ refusals: [] });
    expect(await client.whoami()).toEqual({ kind: 'admin', session_id: null });
    expect(await client.withToken(token).whoami()).toEqual({ kind: 'session', session_id: sessionId });
    const refused = await client.adminLoops({ limit: 0 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem).toMatchObject({ code: 'invalid_field', field: 'limit' });
    await expect(client.withToken(token).adminSessions()).rejects.toMatchObject({ problem: { code: 'forbidden' } });
  });
});
