import { randomUUID } from 'node:crypto';
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

// A leaked session token must stop working: rotation gives the session a new token and the old
// one opens nothing from then on; closing refuses every token of the session and every write to
// it, and keeps it readable for the admin. Played as the attacker who holds the old token.
describe('REST API v1: rotating a session token and closing a session', () => {
  let t: HttpTestApp;
  beforeEach(async () => {
    t = await createHttpTestApp();
  });
  afterEach(() => t.close());

  /** Every route a holder of `token` could try on the session, each answered with `status`. */
  async function expectEveryRoute(sessionId: string, loopId: string, token: string, status: number, code?: string): Promise<void> {
    const attempts = [
      t.http.get(`/v1/sessions/${sessionId}`),
      t.http.get(`/v1/sessions/${sessionId}/loops/${loopId}`),
      t.http.get(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`),
      t.http.get(`/v1/sessions/${sessionId}/journal`),
      t.http.get('/v1/whoami'),
      t.http.post(`/v1/sessions/${sessionId}/loops`).send({}),
      t.http.post(`/v1/sessions/${sessionId}/process-completions`).send(notification(sessionId, loopId)),
      t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).send(lifecycleRecord(sessionId, loopId)),
      t.http.post(`/v1/sessions/${sessionId}/loops/${loopId}/stop`),
      t.http.post(`/v1/sessions/${sessionId}/token`),
      t.http.post(`/v1/sessions/${sessionId}/close`),
    ];
    for (const attempt of attempts) {
      const response = await attempt.set(bearer(token));
      if (code) expectProblem(response, status, code);
      else expect(response.status).toBe(status);
    }
  }

  it.each([
    ['its own token', (token: string) => bearer(token)],
    ['the admin token', () => admin],
  ])('rotation with %s: a new token, shown once; the old one answers 401 everywhere, the new one works', async (_who, by) => {
    const { sessionId, loopId, token: old } = await openSessionWithLoop(t);

    const rotated = await t.http.post(`/v1/sessions/${sessionId}/token`).set(by(old)).expect(200);
    expect(rotated.body).toEqual({ session_id: sessionId, token: expect.any(String) });
    const fresh = rotated.body.token as string;
    expect(fresh).not.toBe(old);
    expect(Buffer.from(fresh, 'base64url').length).toBeGreaterThanOrEqual(16);

    await expectEveryRoute(sessionId, loopId, old, 401, 'unauthorized');
    expect((await t.http.get('/v1/whoami').set(bearer(fresh)).expect(200)).body).toEqual({ kind: 'session', session_id: sessionId });
    await t.http.get(`/v1/sessions/${sessionId}`).set(bearer(fresh)).expect(200);
    const delivered = await t.http
      .post(`/v1/sessions/${sessionId}/process-completions`)
      .set(bearer(fresh))
      .send(notification(sessionId, loopId))
      .expect(202);
    expect(delivered.body).toMatchObject({ disposition: 'accepted', appended: true });
    // Nothing the refused attempts sent was journaled: only the delivery with the new token.
    const journal = await t.http.get(`/v1/sessions/${sessionId}/journal`).set(admin).expect(200);
    expect(journal.body.records.map((record: { kind: string }) => record.kind)).toEqual(['process_notification']);
  });

  it('a rotated token can be rotated again; only the newest opens the session', async () => {
    const { sessionId, token: first } = await openSessionWithLoop(t);
    const second = (await t.http.post(`/v1/sessions/${sessionId}/token`).set(bearer(first)).expect(200)).body.token as string;
    const third = (await t.http.post(`/v1/sessions/${sessionId}/token`).set(bearer(second)).expect(200)).body.token as string;
    for (const stale of [first, second])
      expectProblem(await t.http.get(`/v1/sessions/${sessionId}`).set(bearer(stale)), 401, 'unauthorized');
    await t.http.get(`/v1/sessions/${sessionId}`).set(bearer(third)).expect(200);
  });

  it("another session's token can neither rotate nor close the session: 403 forbidden, its token unchanged", async () => {
    const mine = await openSessionWithLoop(t);
    const other = await openSessionWithLoop(t);
    expectProblem(await t.http.post(`/v1/sessions/${mine.sessionId}/token`).set(bearer(other.token)), 403, 'forbidden');
    expectProblem(await t.http.post(`/v1/sessions/${mine.sessionId}/close`).set(bearer(other.token)), 403, 'forbidden');
    expect((await t.http.get(`/v1/sessions/${mine.sessionId}`).set(bearer(mine.token)).expect(200)).body.state).toBe('open');
  });

  it.each([
    ['its own token', (token: string) => bearer(token)],
    ['the admin token', () => admin],
  ])('closing with %s: tokens 401; admin reads work; writes 409 session_closed; a second close answers the same', async (_who, by) => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const pending = notification(sessionId, loopId);
    await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(bearer(token)).send(pending).expect(202);
    expect((await t.http.get(`/v1/sessions/${sessionId}`).set(admin).expect(200)).body).toMatchObject({ state: 'open', closed_at: null });

    const closed = await t.http.post(`/v1/sessions/${sessionId}/close`).set(by(token)).expect(200);
    expect(closed.body).toEqual({ session_id: sessionId, state: 'closed', closed_at: expect.any(String) });
    expect(Number.isNaN(Date.parse(closed.body.closed_at as string))).toBe(false);
    const again = await t.http.post(`/v1/sessions/${sessionId}/close`).set(admin).expect(200);
    expect(again.body).toEqual(closed.body);

    await expectEveryRoute(sessionId, loopId, token, 401, 'unauthorized');

    // The admin still reads it all: the session, its loop, the pending view, the journal, the admin list.
    const session = await t.http.get(`/v1/sessions/${sessionId}`).set(admin).expect(200);
    expect(session.body).toMatchObject({ session_id: sessionId, state: 'closed', closed_at: closed.body.closed_at });
    expect(session.body.loops).toEqual([expect.objectContaining({ loop_id: loopId, state: 'running', pending: 1 })]);
    const view = await t.http.get(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`).set(admin).expect(200);
    expect(view.body.notifications).toEqual([expect.objectContaining({ command_id: pending.command_id })]);
    const journalBefore = (await t.http.get(`/v1/sessions/${sessionId}/journal`).set(admin).expect(200)).body;
    expect(journalBefore.records).toHaveLength(1);
    const listed = await t.http.get('/v1/admin/sessions').set(admin).expect(200);
    expect(listed.body.sessions).toContainEqual(
      expect.objectContaining({ session_id: sessionId, state: 'closed', closed_at: closed.body.closed_at }),
    );

    // Every write, with the admin token: 409 session_closed, nothing journaled, nothing changed.
    const writes = [
      t.http.post(`/v1/sessions/${sessionId}/loops`).send({}),
      t.http.post(`/v1/sessions/${sessionId}/process-completions`).send(notification(sessionId, loopId)),
      // An identical retry of what was accepted before the close is refused as well.
      t.http.post(`/v1/sessions/${sessionId}/process-completions`).send(pending),
      t.http.post(`/v1/sessions/${sessionId}/process-lifecycle`).send(lifecycleRecord(sessionId, loopId)),
      t.http.post(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/${String(pending.command_id)}/consume`),
      t.http.post(`/v1/sessions/${sessionId}/loops/${loopId}/stop`),
      t.http.post(`/v1/sessions/${sessionId}/token`),
    ];
    for (const write of writes) expectProblem(await write.set(admin), 409, 'session_closed');
    expect((await t.http.get(`/v1/sessions/${sessionId}/journal`).set(admin).expect(200)).body).toEqual(journalBefore);
    expect((await t.http.get(`/v1/sessions/${sessionId}`).set(admin).expect(200)).body).toEqual(session.body);
  });

  it('closing an unknown session: 404 session_not_found', async () => {
    expectProblem(await t.http.post(`/v1/sessions/${randomUUID()}/close`).set(admin), 404, 'session_not_found');
    expectProblem(await t.http.post(`/v1/sessions/${randomUUID()}/token`).set(admin), 404, 'session_not_found');
  });

  it('closing one session leaves the others open', async () => {
    const closing = await openSessionWithLoop(t);
    const staying = await openSessionWithLoop(t);
    await t.http.post(`/v1/sessions/${closing.sessionId}/close`).set(admin).expect(200);
    await t.http
      .post(`/v1/sessions/${staying.sessionId}/process-completions`)
      .set(bearer(staying.token))
      .send(notification(staying.sessionId, staying.loopId))
      .expect(202);
  });

  it.each([
    ['session', 'rotated', 'token'],
    ['session', 'closed', 'close'],
    ['loop', 'rotated', 'token'],
    ['loop', 'closed', 'close'],
  ] as const)(
    "the %s's event stream opened with the token ends once it is %s; the admin token goes on reading",
    async (stream, _what, action) => {
      await t.close();
      // A short keep-alive: the stream's token is checked at each one.
      t = await createHttpTestApp({ sseKeepAliveMs: 50 });
      const { sessionId, loopId, token } = await openSessionWithLoop(t);
      // The session's stream, or its loop's own (issue 37): a leaked token must keep neither open.
      const events = `${t.url}/v1/sessions/${sessionId}${stream === 'loop' ? `/loops/${loopId}` : ''}/events`;
      const leaked = await openSse(events, bearer(token));
      const watching = await openSse(events, admin);
      expect([leaked.status, watching.status]).toEqual([200, 200]);
      await leaked.nextComment();

      await t.http.post(`/v1/sessions/${sessionId}/${action}`).set(admin).expect(200);
      // Ended by the server, cleanly.
      expect(await leaked.ended).toBe(true);
      if (action === 'token') {
        const fresh = (await t.http.get(`/v1/sessions/${sessionId}/journal`).set(admin)).status;
        expect(fresh).toBe(200);
        await t.http.post(`/v1/sessions/${sessionId}/process-completions`).set(admin).send(notification(sessionId, loopId)).expect(202);
        const [event] = await watching.next(1);
        // A session stream's data is the journal record; a loop stream's, the pending-view entry.
        expect(JSON.parse(event!.data)).toMatchObject(stream === 'loop' ? { loop_id: loopId } : { kind: 'process_notification' });
      } else {
        await watching.nextComment();
      }
      watching.close();
    },
  );
});
