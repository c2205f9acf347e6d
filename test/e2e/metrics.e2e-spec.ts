import { randomUUID } from 'node:crypto';
import {
  ATTENTION_CONDITIONS,
  DISPOSITIONS,
  LIFECYCLE_KINDS,
  NODE_LIVENESS,
  STOPPED_DELIVERY_CAUSES,
} from 'process-notifications-contract';
import type { DataSource } from 'typeorm';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import {
  admin,
  bearer,
  createHttpTestApp,
  lifecycleRecord,
  notification,
  openSessionWithLoop,
  type HttpTestApp,
} from './support/http-test-app.js';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

// The Prometheus text exposition format: `name{label="value",...} number`, comments start with #.
function parseMetrics(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const COMPLETIONS_ROUTE = '/v1/sessions/:sid/process-completions';

describe('GET /metrics (spec section 11)', () => {
  let t: HttpTestApp;
  beforeEach(async () => {
    t = await createHttpTestApp({ loopCapacity: 1 });
  });
  afterEach(() => t.close());

  const scrape = async (): Promise<Sample[]> => {
    const response = await t.http.get('/metrics').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(response.text);
  };
  const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
    samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;

  it('needs no token and carries the default process metrics', async () => {
    const samples = await scrape();
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(samples.map((sample) => sample.name)).toContain(name);
    }
    expect(valueOf(samples, 'pn_pending_notifications')).toBe(0);
    // Every disposition and kind is there from the start, at 0.
    for (const disposition of DISPOSITIONS) expect(valueOf(samples, 'pn_notifications_total', { disposition })).toBe(0);
    for (const kind of LIFECYCLE_KINDS) expect(valueOf(samples, 'pn_lifecycle_records_total', { kind })).toBe(0);
    for (const cause of STOPPED_DELIVERY_CAUSES) expect(valueOf(samples, 'pn_notifications_stopped_total', { cause })).toBe(0);
    // Nothing needs attention yet; this process is the one live node (SQLite).
    for (const condition of ATTENTION_CONDITIONS) expect(valueOf(samples, 'pn_loops_needing_attention', { condition })).toBe(0);
    expect(valueOf(samples, 'pn_nodes', { liveness: 'live' })).toBe(1);
    expect(valueOf(samples, 'pn_nodes', { liveness: 'dead' })).toBe(0);
  });

  it('counts every answer of the notify route by disposition, lifecycle records by kind, and the pending set', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const auth = bearer(token);
    const stoppedLoop = (await t.http.post(`/v1/sessions/${sessionId}/loops`).set(auth).send({}).expect(201)).body.loop_id as string;
    await t.http.post(`/v1/sessions/${sessionId}/loops/${stoppedLoop}/stop`).set(auth).expect(200);
    const notify = (body: Record<string, unknown>) => t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(body);

    const first = notification(sessionId, loopId);
    await notify(first).expect(202); // accepted
    await notify(first).expect(200); // duplicate
    await notify({ ...first, process_handle: 'another-process' }).expect(422); // collision
    await notify(notification(sessionId, loopId)).expect(503); // stopped: inbox_full (capacity 1)
    await notify(notification(sessionId, stoppedLoop)).expect(503); // stopped: loop_stopped
    await notify(notification(sessionId, randomUUID())).expect(404); // stopped: loop_not_found
    await notify(notification(sessionId, loopId, { command_id: 'not-a-uuid' })).expect(400); // no disposition

    const publish = (body: Record<string, unknown>) => t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).set(auth).send(body);
    const started = lifecycleRecord(sessionId, loopId);
    await publish(started).expect(201);
    await publish(started).expect(200); // identical retry: no new record
    await publish(lifecycleRecord(sessionId, loopId, { kind: 'backgrounded' })).expect(201);

    let samples = await scrape();
    expect(Object.fromEntries(DISPOSITIONS.map((d) => [d, valueOf(samples, 'pn_notifications_total', { disposition: d })]))).toEqual({
      accepted: 1,
      duplicate: 1,
      stopped: 3,
      collision: 1,
    });
    // The three stopped answers, each under its own cause.
    expect(
      Object.fromEntries(STOPPED_DELIVERY_CAUSES.map((cause) => [cause, valueOf(samples, 'pn_notifications_stopped_total', { cause })])),
    ).toEqual({ loop_stopped: 1, inbox_full: 1, misrouted: 0, loop_not_found: 1, unsupported_engine: 0 });
    expect(valueOf(samples, 'pn_lifecycle_records_total', { kind: 'started' })).toBe(1);
    expect(valueOf(samples, 'pn_lifecycle_records_total', { kind: 'backgrounded' })).toBe(1);
    expect(valueOf(samples, 'pn_pending_notifications')).toBe(1);

    await t.http.post(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${first.command_id}/consume`).set(auth).expect(200);
    samples = await scrape();
    expect(valueOf(samples, 'pn_pending_notifications')).toBe(0);
  });

  it("counts each notification of a batch delivery by its own result's status, and by disposition as the single route does", async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const accepted = notification(sessionId, loopId);
    const body = { notifications: [accepted, { ...accepted, process_handle: 'other' }, notification(sessionId, loopId)] };
    const answer = await t.http.post(`/v1/sessions/${sessionId}/process-completions/batch`).set(bearer(token)).send(body).expect(200);
    // The loop holds one: the third is refused inbox_full (capacity 1).
    expect(answer.body.results.map((result: { status: number }) => result.status)).toEqual([202, 422, 503]);
    const samples = await scrape();
    expect(['202', '422', '503'].map((status) => valueOf(samples, 'pn_batch_deliveries_total', { status }))).toEqual([1, 1, 1]);
    expect(valueOf(samples, 'pn_http_requests_total', { route: `${COMPLETIONS_ROUTE}/batch`, status: '200' })).toBe(1);
    expect(['accepted', 'collision', 'stopped'].map((disposition) => valueOf(samples, 'pn_notifications_total', { disposition }))).toEqual([
      1, 1, 1,
    ]);
    expect(valueOf(samples, 'pn_notifications_stopped_total', { cause: 'inbox_full' })).toBe(1);
  });

  it('observes every journal commit: time and batch size histograms', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(bearer(token)).send(notification(sessionId, loopId)).expect(202);
    const samples = await scrape();
    const commits = valueOf(samples, 'pn_journal_commit_seconds_count')!;
    // A session, a loop and a notification: at least one commit each unless grouped.
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'pn_journal_batch_size_count')).toBe(commits);
    expect(valueOf(samples, 'pn_journal_batch_size_sum')).toBeGreaterThanOrEqual(3);
    expect(valueOf(samples, 'pn_journal_commit_seconds_sum')).toBeGreaterThan(0);
    expect(valueOf(samples, 'pn_journal_commit_seconds_bucket', { le: '+Inf' })).toBe(commits);
  });

  it('counts HTTP requests by route template and status, never by path; unknown routes share one label', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const body = notification(sessionId, loopId);
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(bearer(token)).send(body).expect(202);
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(bearer(token)).send(body).expect(200);
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).send(body).expect(401);
    await t.http.get(`/v1/sessions/${sessionId}/no-such-thing/${randomUUID()}`).set(admin).expect(404);
    await t.http.get(`/v1/other/${randomUUID()}`).set(admin).expect(404);
    // Answered by Fastify before any middleware, and counted all the same.
    await t.http.get('/v1/sessions/%ZZ').set(admin).expect(400);

    const samples = await scrape();
    const requests = samples.filter((sample) => sample.name === 'pn_http_requests_total');
    expect(valueOf(requests, 'pn_http_requests_total', { route: COMPLETIONS_ROUTE, status: '202' })).toBe(1);
    expect(valueOf(requests, 'pn_http_requests_total', { route: COMPLETIONS_ROUTE, status: '200' })).toBe(1);
    expect(valueOf(requests, 'pn_http_requests_total', { route: COMPLETIONS_ROUTE, status: '401' })).toBe(1);
    expect(valueOf(requests, 'pn_http_requests_total', { route: '/v1/sessions', status: '201' })).toBe(1);
    expect(valueOf(requests, 'pn_http_requests_total', { route: 'unmatched', status: '404' })).toBe(2);
    expect(valueOf(requests, 'pn_http_requests_total', { route: 'unmatched', status: '400' })).toBe(1);
    // No session, loop or command id in any label of any metric.
    for (const sample of samples) expect(Object.values(sample.labels).join(' ')).not.toMatch(UUID);

    // A counter only grows: what came after a scrape adds to what the scrape showed.
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(bearer(token)).send(body).expect(200);
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(bearer(token)).send(body).expect(200);
    const later = (await scrape()).filter((sample) => sample.name === 'pn_http_requests_total');
    expect(valueOf(later, 'pn_http_requests_total', { route: COMPLETIONS_ROUTE, status: '200' })).toBe(3);
    expect(valueOf(later, 'pn_http_requests_total', { route: COMPLETIONS_ROUTE, status: '202' })).toBe(1);
  });
});

describe('GET /metrics: loops needing attention and nodes, read from the database (PostgreSQL)', () => {
  let pgAdmin: DataSource | undefined;
  let schema: { name: string; databaseUrl: string };
  let t: HttpTestApp;
  beforeAll(async () => {
    pgAdmin = await connectPostgresAdmin();
  });
  afterAll(async () => {
    await pgAdmin?.destroy();
  });
  beforeEach(async () => {
    if (!pgAdmin) return;
    schema = freshSchema();
    await pgAdmin.query(`CREATE SCHEMA "${schema.name}"`);
    t = await createHttpTestApp({ databaseUrl: schema.databaseUrl, loopCapacity: 2 });
  });
  afterEach(async () => {
    if (!pgAdmin) return;
    await t.close();
    await pgAdmin.query(`DROP SCHEMA IF EXISTS "${schema.name}" CASCADE`);
  });

  const gauges = async (): Promise<Record<string, number | undefined>> => {
    const samples = parseMetrics((await t.http.get('/metrics').expect(200)).text);
    const value = (name: string, labels: Record<string, string>) =>
      samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, v]) => sample.labels[key] === v))?.value;
    return Object.fromEntries([
      ...ATTENTION_CONDITIONS.map((condition) => [condition, value('pn_loops_needing_attention', { condition })]),
      ...NODE_LIVENESS.map((liveness) => [liveness, value('pn_nodes', { liveness })]),
    ]);
  };

  it('counts the loops each admin filter lists (full, stopped with work, stale) and the nodes live and dead', async () => {
    if (!pgAdmin) return;
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const auth = bearer(token);
    const notify = (loop: string) =>
      t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(notification(sessionId, loop));
    const newLoop = async () =>
      (await t.http.post(`/v1/sessions/${sessionId}/loops`).set(auth).send({}).expect(201)).body.loop_id as string;
    const stale = await newLoop();
    const stopped = await newLoop();
    await t.http.post(`/v1/sessions/${sessionId}/loops/${stopped}/stop`).set(auth).expect(200);
    await notify(loopId).expect(202);
    await notify(loopId).expect(202); // full: 2 of capacity 2
    await notify(stale).expect(202);
    await notify(stopped).expect(503); // journaled, nobody will take it
    // The clock played forward for one loop: its oldest unconsumed notification is 10 minutes old.
    await pgAdmin.query(`UPDATE "${schema.name}".pn_loops SET oldest_unconsumed_at = now() - interval '10 minutes' WHERE loop_id = $1`, [
      stale,
    ]);
    // A node killed a while ago: its heartbeat row expired, never renewed.
    await pgAdmin.query(
      `INSERT INTO "${schema.name}".pn_nodes (node_id, url, expires_at, heartbeat_at)
       VALUES ($1, 'http://127.0.0.1:1', now() - interval '1 minute', now() - interval '2 minutes')`,
      [randomUUID()],
    );

    const expected = { full: 1, stopped: 1, stale: 1, live: 1, dead: 1 };
    expect(await gauges()).toEqual(expected);
    // The same loops as the admin filters list.
    for (const condition of ATTENTION_CONDITIONS) {
      const listed = await t.http.get(`/v1/admin/loops?filter=${condition}`).set(admin).expect(200);
      expect([condition, listed.body.loops.length]).toEqual([condition, expected[condition]]);
    }

    // Consuming the full loop's work takes it off; the gauges follow at the next scrape.
    const pending = (await t.http.get(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`).set(auth).expect(200)).body;
    const ids = (pending.notifications as Array<{ command_id: string }>).map((n) => n.command_id);
    await t.http
      .post(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/consume`)
      .set(auth)
      .send({ command_ids: ids })
      .expect(200);
    expect(await gauges()).toEqual({ ...expected, full: 0 });
  });
});
