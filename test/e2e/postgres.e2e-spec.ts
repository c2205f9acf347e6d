import { connectPostgresAdmin, freshSchema, POSTGRES_URL } from '../support/postgres.js';
import { admin, bearer, createHttpTestApp, lifecycleRecord, notification, type HttpTestApp } from './support/http-test-app.js';

// The server on PostgreSQL (the path for users who outgrow one machine), in a schema of its own.
const pgAdmin = await connectPostgresAdmin();
const describeOnPostgres = pgAdmin ? describe : describe.skip;

describeOnPostgres(`REST API v1 on PostgreSQL (${pgAdmin ? POSTGRES_URL : 'unreachable: skipped'})`, () => {
  const { name: schema, databaseUrl } = freshSchema();
  let t: HttpTestApp | undefined;

  beforeAll(() => pgAdmin!.query(`CREATE SCHEMA "${schema}"`));
  afterAll(async () => {
    await t?.close();
    await pgAdmin!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pgAdmin!.destroy();
  });

  it('delivers, de-duplicates, consumes, publishes, pages the journal and restores after a restart', async () => {
    t = await createHttpTestApp({ databaseUrl });
    const session = await t.http.post('/v1/sessions').set(admin).expect(201);
    const sessionId = session.body.session_id as string;
    const auth = bearer(session.body.token as string);
    const loopId = (await t.http.post(`/v1/sessions/${sessionId}/loops`).set(auth).expect(201)).body.loop_id as string;
    const completions = `/v1/sessions/${sessionId}/process-completions`;

    const [first, second] = [notification(sessionId, loopId), notification(sessionId, loopId)];
    await t.http
      .post(completions)
      .set(auth)
      .send(first)
      .expect(202, { disposition: 'accepted', command_id: first.command_id, sequence: 1, appended: true });
    await t.http
      .post(completions)
      .set(auth)
      .send(first)
      .expect(200, { disposition: 'duplicate', command_id: first.command_id, sequence: 1, appended: false });
    await t.http
      .post(completions)
      .set(auth)
      .send({ ...first, process_handle: 'other' })
      .expect(422);
    await t.http.post(completions).set(auth).send(second).expect(202);
    await t.http
      .post(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${first.command_id}/consume`)
      .set(auth)
      .expect(200, { consumed: true, sequence: 3 });
    const record = lifecycleRecord(sessionId, loopId);
    await t.http
      .post(`/v1/sessions/${sessionId}/process-lifecycle`)
      .set(auth)
      .send(record)
      .expect(201, { event_id: record.event_id, sequence: 4, appended: true });

    const page = await t.http.get(`/v1/sessions/${sessionId}/journal?after=1&limit=2`).set(auth).expect(200);
    expect(page.body.records.map((r: { sequence: number; kind: string }) => [r.sequence, r.kind])).toEqual([
      [2, 'process_notification'],
      [3, 'process_notification_consumed'],
    ]);
    expect(page.body.next_after).toBe(3);

    await t.close();
    t = await createHttpTestApp({ databaseUrl });
    const pending = await t.http.get(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`).set(auth).expect(200);
    expect(pending.body.notifications.map((n: { command_id: string; sequence: number }) => [n.command_id, n.sequence])).toEqual([
      [second.command_id, 2],
    ]);
    await t.http.post(completions).set(auth).send(first).expect(200);
  });
});
