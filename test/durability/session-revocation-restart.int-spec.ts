import { jsonRequest } from '../support/http-client.js';
import { notification } from '../support/test-app.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { tempDir } from './support/temp-dir.js';

// Rotation and closing are committed before they are answered: a server killed right after the
// answer (SIGKILL, nothing flushed at exit) comes back with the new token, the old one refused,
// and a closed session still closed.
describe('rotating and closing across a crash and restart (real server, SQLite file)', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
    dir.remove();
  });

  const start = async (): Promise<ServerProcess> =>
    (server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}` }));
  const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
    jsonRequest(undefined, `${server!.url}${path}`, method, token, body);
  const crash = async (): Promise<void> => {
    await server!.stop('SIGKILL');
    server = undefined;
  };

  async function openSessionWithLoop(): Promise<{ sessionId: string; loopId: string; token: string }> {
    const session = (await call('POST', '/v1/sessions', SERVER_ADMIN_TOKEN)).body as { session_id: string; token: string };
    const loop = (await call('POST', `/v1/sessions/${session.session_id}/loops`, SERVER_ADMIN_TOKEN, {})).body as { loop_id: string };
    return { sessionId: session.session_id, loopId: loop.loop_id, token: session.token };
  }

  it('after a rotation and a crash, the old token is refused and the new one works', async () => {
    await start();
    const { sessionId, loopId, token: old } = await openSessionWithLoop();
    const rotated = await call('POST', `/v1/sessions/${sessionId}/token`, old, {});
    expect(rotated.status).toBe(200);
    const fresh = (rotated.body as { token: string }).token;
    await crash();

    await start();
    expect(await call('GET', `/v1/sessions/${sessionId}`, old)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect(await call('GET', `/v1/sessions/${sessionId}`, fresh)).toMatchObject({
      status: 200,
      body: { session_id: sessionId, state: 'open' },
    });
    const delivered = await call('POST', `/v1/sessions/${sessionId}/process-completions`, fresh, notification(sessionId, loopId));
    expect(delivered).toMatchObject({ status: 202, body: { disposition: 'accepted' } });
  });

  it('after a close and a crash, the session stays closed: token refused, writes 409, admin reads it', async () => {
    await start();
    const { sessionId, loopId, token } = await openSessionWithLoop();
    const closed = await call('POST', `/v1/sessions/${sessionId}/close`, token, {});
    expect(closed).toMatchObject({ status: 200, body: { session_id: sessionId, state: 'closed' } });
    const closedAt = (closed.body as { closed_at: string }).closed_at;
    await crash();

    await start();
    expect(await call('GET', `/v1/sessions/${sessionId}`, token)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect(await call('GET', `/v1/sessions/${sessionId}`, SERVER_ADMIN_TOKEN)).toMatchObject({
      status: 200,
      body: { session_id: sessionId, state: 'closed', closed_at: closedAt },
    });
    const refused = await call(
      'POST',
      `/v1/sessions/${sessionId}/process-completions`,
      SERVER_ADMIN_TOKEN,
      notification(sessionId, loopId),
    );
    expect(refused).toMatchObject({ status: 409, body: { code: 'session_closed' } });
    expect(await call('POST', `/v1/sessions/${sessionId}/token`, SERVER_ADMIN_TOKEN, {})).toMatchObject({
      status: 409,
      body: { code: 'session_closed' },
    });
    expect(await call('POST', `/v1/sessions/${sessionId}/close`, SERVER_ADMIN_TOKEN, {})).toMatchObject({
      status: 200,
      body: { closed_at: closedAt },
    });
    expect(await call('GET', `/v1/sessions/${sessionId}/journal`, SERVER_ADMIN_TOKEN)).toMatchObject({
      status: 200,
      body: { records: [] },
    });
  });
});
