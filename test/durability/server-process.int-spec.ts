import { request } from 'node:http';
import { jsonRequest } from '../support/http-client.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { tempDir } from './support/temp-dir.js';

// The real server process: how it refuses to start, and how it stops.
describe('the server process', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it.each([
    ['too short', 'short-token'],
    ['with whitespace', `${'a'.repeat(20)} ${'b'.repeat(20)}`],
  ])('refuses to start with a PN_ADMIN_TOKEN %s: exit 1 and one line saying why', async (_case, token) => {
    const error = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}`, PN_ADMIN_TOKEN: token }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/server exited \(1\) before listening/);
    const lines = error!.message.split('\n').slice(1).filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PN_ADMIN_TOKEN must/);
    expect(lines[0]).not.toContain(token);
  });

  it.each(['SIGHUP', 'SIGUSR2'] as const)('drains and exits 0 on %s, like SIGTERM, not at once', async (signal) => {
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}` });
    server.signal(signal);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output).toContain(`${signal}: draining`);
  });

  it('treats an aborted upload as the client going away: no error logged, the server keeps answering', async () => {
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}` });
    try {
      const { session_id: sessionId, token } = (await jsonRequest(undefined, `${server.url}/v1/sessions`, 'POST', SERVER_ADMIN_TOKEN)).body as {
        session_id: string;
        token: string;
      };
      await new Promise<void>((resolve) => {
        const req = request(`${server.url}/v1/sessions/${sessionId}/process-completions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': 1000 },
        });
        req.on('error', () => resolve());
        req.write('{"command_id": "', () => req.destroy());
      });
      // Answered after the abort was handled: the server is fine and has logged no error.
      expect((await jsonRequest(undefined, `${server.url}/healthz`, 'GET', undefined)).status).toBe(200);
      expect(server.output).not.toMatch(/ERROR/);
    } finally {
      await server.stop('SIGKILL');
    }
  });
});
