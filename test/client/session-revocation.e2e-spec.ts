import {
  ProblemError,
  ProcessNotificationsClient,
  type ProcessCompletionNotification,
  type RetryNotice,
} from 'process-notifications-client';
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, createHttpTestApp, type HttpTestApp } from '../e2e/support/http-test-app.js';

// The TypeScript client's rotateSessionToken and closeSession against the real server, and what a
// caller of a closed session is told: 401 with its token, 409 session_closed with the admin
// token, each at once (final: the client retries neither, even on a write it retries by default).
describe('ProcessNotificationsClient: rotating a token and closing a session', () => {
  let server: HttpTestApp;
  beforeAll(async () => {
    server = await createHttpTestApp();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function open(onRetry: (notice: RetryNotice) => void) {
    const admin = new ProcessNotificationsClient({ baseUrl: server.url, token: ADMIN_TOKEN, onRetry });
    const session = await admin.createSession();
    const client = admin.withToken(session.token);
    const loop = await client.openLoop(session.session_id);
    return { admin, client, sessionId: session.session_id, loopId: loop.loop_id };
  }

  const completion = (sessionId: string, loopId: string): ProcessCompletionNotification => ({
    command_id: randomUUID(),
    session_id: sessionId,
    loop_id: loopId,
    process_handle: 'make-test',
    state: 'exited',
    reason: 'exited',
  });

  it('rotateSessionToken: the old client is refused, withToken(new) goes on', async () => {
    const retries: RetryNotice[] = [];
    const { client, sessionId, loopId } = await open((notice) => retries.push(notice));
    const rotated = await client.rotateSessionToken(sessionId);
    expect(rotated).toEqual({ session_id: sessionId, token: expect.any(String) });

    expect(await client.getSession(sessionId).catch((e: unknown) => e)).toMatchObject({ status: 401, code: 'unauthorized' });
    const renewed = client.withToken(rotated.token);
    expect(await renewed.deliverCompletion(completion(sessionId, loopId))).toMatchObject({ disposition: 'accepted' });
    expect(retries).toEqual([]);
  });

  it('closeSession: idempotent; then session_closed (409) with the admin token and 401 with the session token, never retried', async () => {
    const retries: RetryNotice[] = [];
    const { admin, client, sessionId, loopId } = await open((notice) => retries.push(notice));
    const closed = await client.closeSession(sessionId);
    expect(closed).toEqual({ session_id: sessionId, state: 'closed', closed_at: expect.any(String) });
    expect(await admin.closeSession(sessionId)).toEqual(closed);
    expect(await admin.getSession(sessionId)).toMatchObject({ state: 'closed', closed_at: closed.closed_at });
    expect((await admin.adminSessions()).sessions).toContainEqual(expect.objectContaining({ session_id: sessionId, state: 'closed' }));

    const refused = await admin.deliverCompletion(completion(sessionId, loopId)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProblemError);
    expect(refused).toMatchObject({ status: 409, code: 'session_closed' });
    expect(await admin.stopLoop(sessionId, loopId).catch((e: unknown) => e)).toMatchObject({ status: 409, code: 'session_closed' });
    expect(await admin.rotateSessionToken(sessionId).catch((e: unknown) => e)).toMatchObject({ status: 409, code: 'session_closed' });
    const revoked = await client.deliverCompletion(completion(sessionId, loopId)).catch((e: unknown) => e);
    expect(revoked).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(retries).toEqual([]);
  });
});
