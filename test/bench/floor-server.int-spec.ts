import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerWorker, type ServerWorker } from '../../apps/bench/server-worker.js';
import type { SqliteFloorConfig } from '../../apps/bench/floor-http-server.worker.js';
import { ADMIN_TOKEN, createHttpTestApp, type HttpTestApp } from '../e2e/support/http-test-app.js';
import { benchNotification, fingerprintOf } from '../support/notification-fixture.js';
import { NOTIFICATION_VECTORS, VECTOR_LOOP, VECTOR_SESSION } from '../support/notification-vectors.js';

// The bench runs the floor from dist/ (npm test builds first, see "pretest").
const WORKER = new URL('../../dist/apps/bench/floor-http-server.worker.js', import.meta.url);
const CAPACITY = 3;

const VECTORS = NOTIFICATION_VECTORS;

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly replayed: string | null;
  readonly retryAfter: string | null;
  readonly body: Record<string, unknown>;
}

async function send(
  base: string,
  path: string,
  token: string | undefined,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    replayed: response.headers.get('idempotent-replayed'),
    retryAfter: response.headers.get('retry-after'),
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/** A session (its token) with one loop of `engine`, opened through the server's API. */
async function openSession(
  base: string,
  ids: { session_id?: string; loop_id?: string } = {},
  engine = 'native',
): Promise<{ sessionId: string; loopId: string; token: string }> {
  const session = await send(
    base,
    '/v1/sessions',
    ADMIN_TOKEN,
    ids.session_id ? JSON.stringify({ session_id: ids.session_id }) : undefined,
  );
  expect(session.status).toBe(201);
  const sessionId = String(session.body.session_id);
  const token = String(session.body.token);
  const loop = await send(
    base,
    `/v1/sessions/${sessionId}/loops`,
    token,
    JSON.stringify({ engine, ...(ids.loop_id ? { loop_id: ids.loop_id } : {}) }),
  );
  expect(loop.status).toBe(201);
  return { sessionId, loopId: String(loop.body.loop_id), token };
}

/** What the contract fixes about an answer (not the detail text, not sequences: the app also journals sessions and loops). */
function outcome(answer: Answer): Record<string, unknown> {
  const { body } = answer;
  return {
    status: answer.status,
    contentType: answer.contentType?.split(';')[0],
    replayed: answer.replayed,
    retryAfter: answer.retryAfter,
    code: body.code,
    field: body.field,
    disposition: body.disposition,
    cause: body.cause,
    appended: body.appended,
    command_id: body.command_id,
  };
}

describe('the bench floor (apps/bench/floor-http-server.worker.ts) answers the notify route like the contract', () => {
  let dir: string;
  let floor: ServerWorker;
  let floorUrl: string;
  let journal: Database.Database;

  beforeAll(async () => {
    if (!existsSync(WORKER)) throw new Error(`${WORKER.pathname} is missing: run npm run build first`);
    dir = mkdtempSync(join(tmpdir(), 'pn-floor-test-'));
    const config: SqliteFloorConfig = { adminToken: ADMIN_TOKEN, capacity: CAPACITY, database: join(dir, 'floor.db') };
    floor = await startServerWorker(WORKER, config);
    floorUrl = `http://127.0.0.1:${floor.port}`;
    journal = new Database(config.database, { readonly: true });
  });

  afterAll(async () => {
    journal?.close();
    await floor?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const recordsOf = (sessionId: string) =>
    journal
      .prepare('SELECT kind, loop_id, idempotency_id, fingerprint, payload FROM pn_journal WHERE session_id = ? ORDER BY sequence')
      .all(sessionId);

  it('journals a first delivery (202), answers an identical retry 200 duplicate with Idempotent-Replayed, and a different payload 422', async () => {
    const { sessionId, loopId, token } = await openSession(floorUrl);
    const path = `/v1/sessions/${sessionId}/process-completions`;
    const notification = benchNotification(sessionId, loopId, 1);

    const first = await send(floorUrl, path, token, JSON.stringify(notification));
    expect(first).toMatchObject({ status: 202, replayed: null });
    expect(first.body).toEqual({
      disposition: 'accepted',
      command_id: notification.command_id,
      sequence: expect.any(Number),
      appended: true,
    });

    // An upper-case retry is the same notification (UUIDs compare in lower case).
    const retry = await send(
      floorUrl,
      path,
      token,
      JSON.stringify({ ...notification, command_id: notification.command_id!.toUpperCase() }),
    );
    expect(retry).toMatchObject({ status: 200, replayed: 'true' });
    expect(retry.body).toEqual({
      disposition: 'duplicate',
      command_id: notification.command_id,
      sequence: first.body.sequence,
      appended: false,
    });

    const collision = await send(floorUrl, path, token, JSON.stringify({ ...notification, process_handle: 'another-process' }));
    expect(collision).toMatchObject({ status: 422, contentType: 'application/problem+json' });
    expect(collision.body).toMatchObject({ code: 'idempotency_collision', disposition: 'collision', sequence: first.body.sequence });

    // One record, with the journal's fingerprint of the canonical payload.
    const payload = JSON.stringify(notification);
    expect(recordsOf(sessionId)).toEqual([
      {
        kind: 'process_notification',
        loop_id: loopId,
        idempotency_id: notification.command_id,
        fingerprint: fingerprintOf('process_notification', payload),
        payload,
      },
    ]);
  });

  it('refuses before the journal: 400 invalid_field, 401 without or with an unknown token, 403 for another session, 404 unknown loop', async () => {
    const mine = await openSession(floorUrl);
    const other = await openSession(floorUrl);
    const path = `/v1/sessions/${mine.sessionId}/process-completions`;
    const notification = benchNotification(mine.sessionId, mine.loopId, 1);
    const body = JSON.stringify(notification);

    const unknownField = await send(floorUrl, path, mine.token, JSON.stringify({ ...notification, command: 'rm -rf /' }));
    expect(unknownField.status).toBe(400);
    expect(unknownField.body).toMatchObject({ code: 'invalid_field', field: 'command' });
    const badPair = await send(floorUrl, path, mine.token, JSON.stringify({ ...notification, reason: 'killed' }));
    expect(badPair.body).toMatchObject({ status: 400, code: 'invalid_field', field: 'state_reason' });

    const anonymous = await send(floorUrl, path, undefined, body);
    expect(anonymous).toMatchObject({ status: 401, contentType: 'application/problem+json' });
    expect(anonymous.body.code).toBe('unauthorized');
    expect((await send(floorUrl, path, 'not-a-token', body)).status).toBe(401);

    const foreignToken = await send(floorUrl, path, other.token, body);
    expect(foreignToken.body).toMatchObject({ status: 403, code: 'forbidden' });
    const misaddressed = await send(floorUrl, path, mine.token, JSON.stringify(benchNotification(other.sessionId, other.loopId, 1)));
    expect(misaddressed.body).toMatchObject({ status: 403, code: 'owner_mismatch' });
    const noLoop = await send(floorUrl, path, mine.token, JSON.stringify(benchNotification(mine.sessionId, randomUUID(), 1)));
    expect(noLoop.body).toMatchObject({ status: 404, code: 'loop_not_found', disposition: 'stopped' });

    expect(recordsOf(mine.sessionId)).toEqual([]);
  });

  it('answers 503 delivery_stopped (inbox_full) once the pending set holds its capacity, with the record journaled', async () => {
    const { sessionId, loopId, token } = await openSession(floorUrl);
    const path = `/v1/sessions/${sessionId}/process-completions`;
    for (let i = 0; i < CAPACITY; i++) {
      expect((await send(floorUrl, path, token, JSON.stringify(benchNotification(sessionId, loopId, i)))).status).toBe(202);
    }
    const full = await send(floorUrl, path, token, JSON.stringify(benchNotification(sessionId, loopId, CAPACITY)));
    expect(full).toMatchObject({ status: 503, retryAfter: '1' });
    expect(full.body).toMatchObject({ code: 'delivery_stopped', disposition: 'stopped', cause: 'inbox_full', loop_id: loopId });
    expect(recordsOf(sessionId)).toHaveLength(CAPACITY + 1);
  });

  describe('side by side with the app', () => {
    let app: HttpTestApp;

    beforeAll(async () => {
      app = await createHttpTestApp({ loopCapacity: CAPACITY });
    });
    afterAll(async () => {
      await app?.close();
    });

    it('gives the same status, code, field, disposition and headers as the app for every validation vector and body refusal', async () => {
      const ids = { session_id: VECTOR_SESSION, loop_id: VECTOR_LOOP };
      const servers = [
        { base: floorUrl, ...(await openSession(floorUrl, ids)) },
        { base: app.url, ...(await openSession(app.url, ids)) },
      ];
      const foreign = await Promise.all([openSession(floorUrl, {}, 'foreign'), openSession(app.url, {}, 'foreign')]);
      const path = `/v1/sessions/${VECTOR_SESSION}/process-completions`;
      const valid = JSON.stringify(benchNotification(VECTOR_SESSION, VECTOR_LOOP, 1, '5ca05a8e-1bed-40d9-abdc-87c921bd5e51'));
      const cases: Array<{ name: string; body?: string; headers?: Record<string, string>; token?: 'none' | 'foreign' }> = [
        ...VECTORS.map((vector) => ({ name: vector.name, body: JSON.stringify(vector.input) })),
        { name: 'identical retry of a vector', body: JSON.stringify(VECTORS.find((vector) => vector.field === null)!.input) },
        { name: 'not JSON', body: '{"command_id": ' },
        { name: 'duplicate key', body: valid.replace('{', '{"state":"exited",') },
        { name: 'not an object', body: '[]' },
        { name: 'empty body' },
        { name: 'too large', body: JSON.stringify({ padding: 'x'.repeat(17 * 1024) }) },
        { name: 'text/plain', body: valid, headers: { 'content-type': 'text/plain' } },
        { name: 'no token', body: valid, token: 'none' },
        { name: "another session's token", body: valid, token: 'foreign' },
      ];
      for (const { name, body, headers, token } of cases) {
        const answers = await Promise.all(
          servers.map((server, i) =>
            send(server.base, path, token === 'none' ? undefined : token === 'foreign' ? foreign[i]!.token : server.token, body, headers),
          ),
        );
        expect({ name, ...outcome(answers[0]!) }).toEqual({ name, ...outcome(answers[1]!) });
      }
      // A foreign loop takes no process notifications: 409 on both.
      const answers = await Promise.all(
        foreign.map((session, i) =>
          send(
            servers[i]!.base,
            `/v1/sessions/${session.sessionId}/process-completions`,
            session.token,
            JSON.stringify(benchNotification(session.sessionId, session.loopId, 1)),
          ),
        ),
      );
      expect(outcome(answers[0]!)).toEqual(outcome(answers[1]!));
      expect(answers[0]!.body.code).toBe('unsupported_engine');
    });
  });
});
