import { JournalWriter } from '../../libs/process-notifications/src/persistence/journal/journal-writer.service.js';
import type { DataSync, JournalDurability } from '../../libs/process-notifications/src/persistence/durability/journal-durability.js';
import { admin, bearer, createHttpTestApp, notification, openSessionWithLoop, type HttpTestApp } from '../e2e/support/http-test-app.js';
import { expectProblem } from '../e2e/support/problem.js';
import { tempDir } from './support/temp-dir.js';

// Issue 45, finding 7: with each sync held past the deadline, writes answered `503
// journal_unavailable` ("nothing was dispatched") had committed: a rotation locked its session out,
// a close closed it, completions reached the loop's stream. The fault is the one of
// sqlite-commit-sync.int-spec.ts: the WAL's sync stalls after COMMIT, then returns. What each
// caller was told is checked against what the journal holds once it has, and the retry the answer
// names is played.
describe('a 503 journal_unavailable tells whether the write may have committed', () => {
  let dir: ReturnType<typeof tempDir>;
  let t: HttpTestApp;
  let release: () => void;
  beforeEach(async () => {
    dir = tempDir();
    t = await createHttpTestApp({ databaseUrl: `sqlite:${dir.file('journal.db')}`, journalTimeoutMs: 300 });
  });
  afterEach(async () => {
    release?.();
    await t.close();
    dir.remove();
  });

  // From now on every sync waits until `release()`, then syncs for real.
  function stallSyncs(): void {
    const durability = (t.app.get(JournalWriter, { strict: false }) as unknown as { durability: JournalDurability }).durability;
    const held = durability as unknown as { datasync: DataSync };
    const real = held.datasync;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    held.datasync = async (path, directory) => {
      await stalled;
      await real(path, directory);
    };
  }
  const completions = (sessionId: string) => `/v1/sessions/${sessionId}/process-completions`;
  const journalIds = async (sessionId: string): Promise<string[]> => {
    const page = await t.http.get(`/v1/sessions/${sessionId}/journal`).set(admin).expect(200);
    return (page.body.records as Array<{ idempotency_id: string }>).map((record) => record.idempotency_id);
  };

  it('a completion: "may have committed" when it was under way, and the retry answers it; "nothing was written" only when true', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    stallSyncs();
    const committing = notification(sessionId, loopId);
    const first = t.http
      .post(completions(sessionId))
      .set(bearer(token))
      .send(committing)
      .then((r) => r);
    // Queued behind the stalled commit: it never reaches the database before its deadline.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiting = notification(sessionId, loopId);
    const second = await t.http.post(completions(sessionId)).set(bearer(token)).send(waiting);
    const inDoubt = await first;

    expectProblem(inDoubt, 503, 'journal_unavailable', { may_have_committed: true });
    expect(inDoubt.body.detail).not.toMatch(/nothing was (dispatched|written)/);
    expectProblem(second, 503, 'journal_unavailable');
    expect(second.body.detail).toMatch(/nothing was written and nothing was dispatched/);

    release();
    // What happened: the one under way committed once its sync returned; the other never did.
    expect(await journalIds(sessionId)).toEqual([committing.command_id]);
    // The retry the answer names tells which and delivers it: no second record.
    const retried = await t.http.post(completions(sessionId)).set(bearer(token)).send(committing).expect(202);
    expect(retried.body).toMatchObject({ disposition: 'accepted', appended: false });
    const pending = await t.http.get(`/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`).set(bearer(token)).expect(200);
    expect(pending.body.notifications.map((n: { command_id: string }) => n.command_id)).toEqual([committing.command_id]);
    await t.http.post(completions(sessionId)).set(bearer(token)).send(waiting).expect(202);
    expect(await journalIds(sessionId)).toEqual([committing.command_id, waiting.command_id]);
  });

  it('a rotation that may have committed says so; once it did, the admin token rotates again (the documented recovery)', async () => {
    const { sessionId, token } = await openSessionWithLoop(t);
    stallSyncs();
    const answer = await t.http.post(`/v1/sessions/${sessionId}/token`).set(bearer(token));
    expectProblem(answer, 503, 'journal_unavailable', { may_have_committed: true });

    release();
    // It committed: the old token opens nothing, and the new one was never shown.
    await t.http.get(`/v1/sessions/${sessionId}/journal`).set(admin).expect(200);
    expectProblem(await t.http.post(`/v1/sessions/${sessionId}/token`).set(bearer(token)), 401, 'unauthorized');
    const rotated = await t.http.post(`/v1/sessions/${sessionId}/token`).set(admin).expect(200);
    await t.http
      .get(`/v1/sessions/${sessionId}`)
      .set(bearer(rotated.body.token as string))
      .expect(200);
  });

  it('a close that may have committed says so; the retry with the admin token answers it', async () => {
    const { sessionId, token } = await openSessionWithLoop(t);
    stallSyncs();
    const answer = await t.http.post(`/v1/sessions/${sessionId}/close`).set(bearer(token));
    expectProblem(answer, 503, 'journal_unavailable', { may_have_committed: true });

    release();
    const retried = await t.http.post(`/v1/sessions/${sessionId}/close`).set(admin).expect(200);
    expect(retried.body).toMatchObject({ session_id: sessionId, state: 'closed' });
    expectProblem(await t.http.get(`/v1/sessions/${sessionId}`).set(bearer(token)), 401, 'unauthorized');
  });
});
