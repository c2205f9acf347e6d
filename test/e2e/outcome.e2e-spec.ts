import { randomUUID } from 'node:crypto';
import { exitedRecord, failedRecord, signalledRecord } from '../support/outcome-records.js';
import {
  bearer,
  createHttpTestApp,
  lifecycleRecord,
  notification,
  openSessionWithLoop,
  type HttpTestApp,
} from './support/http-test-app.js';

describe('GET .../process-notifications shows each notification outcome (section 14, HTTP)', () => {
  let t: HttpTestApp;
  beforeAll(async () => {
    t = await createHttpTestApp();
  });
  afterAll(() => t.close());

  it('null until the completed record naming it is journaled, then its fields; record-first works too', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const auth = bearer(token);
    const pendingPath = `/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`;
    const n = notification(sessionId, loopId);
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(n).expect(202);
    expect((await t.http.get(pendingPath).set(auth).expect(200)).body.notifications[0].outcome).toBeNull();

    const record = exitedRecord(sessionId, loopId, String(n.command_id).toUpperCase(), 3);
    await t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).set(auth).send(record).expect(201);
    // Record first, for a second notification.
    const m = notification(sessionId, loopId, { process_handle: 'make-1a2b3c4d', state: 'failed', reason: 'failed' });
    const failed = failedRecord(sessionId, loopId, m.command_id as string, 'command not found');
    await t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).set(auth).send(failed).expect(201);
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(m).expect(202);
    // A run a signal ended (issue 47): the outcome names the signal.
    const k = notification(sessionId, loopId, { process_handle: 'crash-1a2b3c4d', state: 'killed', reason: 'killed' });
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(auth).send(k).expect(202);
    const killed = signalledRecord(sessionId, loopId, k.command_id as string, 'killed', 'SIGSEGV');
    await t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).set(auth).send(killed).expect(201);

    const { body } = await t.http.get(pendingPath).set(auth).expect(200);
    expect(body.notifications.map((entry: { outcome: unknown }) => entry.outcome)).toEqual([
      {
        event_id: record.event_id,
        kind: 'completed',
        has_exit_code: true,
        exit_code: 3,
        diagnostic: null,
        signal: null,
        process_started_at: '2026-01-01T00:00:01Z',
        process_finished_at: '2026-01-01T00:00:09Z',
      },
      {
        event_id: failed.event_id,
        kind: 'completed',
        has_exit_code: false,
        exit_code: null,
        diagnostic: 'command not found',
        signal: null,
        process_started_at: null,
        process_finished_at: '2026-01-01T00:00:00.5Z',
      },
      {
        event_id: killed.event_id,
        kind: 'completed',
        has_exit_code: false,
        exit_code: null,
        diagnostic: null,
        signal: 'SIGSEGV',
        process_started_at: '2026-01-01T00:00:01Z',
        process_finished_at: '2026-01-01T00:00:09Z',
      },
    ]);
  });

  it('refuses command_id on other kinds and equal to event_id; a changed one under the same event_id is a collision', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const auth = bearer(token);
    const lifecycle = `/v1/sessions/${sessionId}/process-lifecycle`;
    const startedBody = lifecycleRecord(sessionId, loopId, { command_id: randomUUID() });
    const refused = await t.http.post(lifecycle).set(auth).send(startedBody).expect(400);
    expect(refused.body).toMatchObject({ code: 'invalid_field', field: 'command_id' });
    const id = randomUUID();
    const same = await t.http
      .post(lifecycle)
      .set(auth)
      .send(exitedRecord(sessionId, loopId, id, 0, { event_id: id }))
      .expect(400);
    expect(same.body).toMatchObject({ code: 'invalid_field', field: 'command_id' });

    const record = exitedRecord(sessionId, loopId, randomUUID(), 0);
    const written = await t.http.post(lifecycle).set(auth).send(record).expect(201);
    await t.http.post(lifecycle).set(auth).send(record).expect(200);
    const collision = await t.http
      .post(lifecycle)
      .set(auth)
      .send({ ...record, command_id: randomUUID() })
      .expect(422);
    expect(collision.body).toMatchObject({ code: 'idempotency_collision', sequence: written.body.sequence });
  });
});
