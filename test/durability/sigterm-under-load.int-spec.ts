import { Agent } from 'node:http';
import { notification } from '../support/test-app.js';
import { jsonRequest, type HttpAnswer } from '../support/http-client.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { tempDir } from './support/temp-dir.js';

const CONNECTIONS = 32;

// The real server process, 32 keep-alive connections sending without pause, and SIGTERM in the
// middle: every request that reached the server is answered, no connection is reset, and what
// was answered 2xx is in the journal (and pending) after a restart.
describe('SIGTERM under keep-alive load', () => {
  let dir: ReturnType<typeof tempDir>;
  const servers: ServerProcess[] = [];

  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop('SIGKILL');
    dir.remove();
  });

  const start = async () => {
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}`, PN_LOOP_CAPACITY: '1000000' });
    servers.push(server);
    return server;
  };

  it('answers every request, resets no connection, and loses nothing answered 2xx', async () => {
    const first = await start();
    const session = await jsonRequest(undefined, `${first.url}/v1/sessions`, 'POST', SERVER_ADMIN_TOKEN);
    const { session_id: sessionId, token } = session.body as { session_id: string; token: string };
    const loop = await jsonRequest(undefined, `${first.url}/v1/sessions/${sessionId}/loops`, 'POST', token);
    const { loop_id: loopId } = loop.body as { loop_id: string };

    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const answers: Array<{ commandId: string; answer: HttpAnswer }> = [];
    let refused = false;
    const sender = async () => {
      // Until the server no longer accepts connections (it stopped listening, then exited).
      while (!refused) {
        const n = notification(sessionId, loopId);
        const answer = await jsonRequest(agent, `${first.url}/v1/sessions/${sessionId}/process-completions`, 'POST', token, n);
        if (answer.error === 'ECONNREFUSED') refused = true;
        else answers.push({ commandId: n.command_id as string, answer });
      }
    };
    const senders = Array.from({ length: CONNECTIONS }, sender);
    // Under load before the signal: wait for real answers, not for time (polled with a short
    // sleep: a spinning test process would take a core from the server).
    while (answers.length < 500) await new Promise((resolve) => setTimeout(resolve, 5));
    first.signal('SIGTERM');
    await Promise.all(senders);
    agent.destroy();
    expect(await first.exited).toEqual({ code: 0, signal: null });

    const failures = answers.filter(({ answer }) => answer.error !== undefined);
    expect(failures.map(({ answer }) => answer.error)).toEqual([]);
    const statuses = new Set(answers.map(({ answer }) => answer.status));
    expect([...statuses].every((status) => status === 202)).toBe(true);
    // The drain was seen by the clients: answers after the signal told them to close.
    expect(answers.some(({ answer }) => answer.headers?.connection === 'close')).toBe(true);

    const second = await start();
    const pending = await jsonRequest(
      undefined,
      `${second.url}/v1/sessions/${sessionId}/loops/${loopId}/process-notifications`,
      'GET',
      token,
    );
    const pendingIds = new Set((pending.body as { notifications: Array<{ command_id: string }> }).notifications.map((n) => n.command_id));
    const accepted = answers.filter(({ answer }) => answer.status === 202).map(({ commandId }) => commandId);
    expect(accepted.filter((id) => !pendingIds.has(id))).toEqual([]);
    expect(pendingIds.size).toBe(accepted.length);
    // Two server starts and a drain under load, on a machine that may be busy.
  }, 120_000);
});
