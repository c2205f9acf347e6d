import { Agent, request } from 'node:http';
import { inFreshSchema } from '../support/postgres.js';
import { jsonRequest, type HttpAnswer } from '../support/http-client.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { tempDir } from './support/temp-dir.js';

type LogLine = { level: string; msg: string; [field: string]: unknown };

/** Every line the process wrote, each parsed: a line that is not JSON fails the test. */
function linesOf(output: string): LogLine[] {
  return output
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

/** A raw request with the headers given, its answer. */
function send(url: string, method: string, headers: Record<string, string>, body?: string, agent?: Agent): Promise<HttpAnswer> {
  return new Promise((resolve) => {
    const req = request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : undefined }),
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(body);
  });
}

// The real server process at its edges (issues of start, shutdown and client input): what a
// client and an operator see, with real signals.
describe('the server process at its edges', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('answers a comma-separated Content-Type with 415 unsupported_media_type, authenticated or not, and logs no error', async () => {
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}` });
    try {
      const auths: Array<Record<string, string>> = [{}, { Authorization: `Bearer ${SERVER_ADMIN_TOKEN}` }];
      for (const auth of auths) {
        for (const contentType of ['application/json, text/plain', 'text/plain, application/json', 'application/json,']) {
          const answer = await send(`${server.url}/v1/sessions`, 'POST', { ...auth, 'Content-Type': contentType }, '{}');
          expect(answer.status).toBe(415);
          expect(answer.headers?.['content-type']).toBe('application/problem+json');
          expect(answer.body).toMatchObject({ status: 415, code: 'unsupported_media_type' });
        }
      }
      // The server's own check (after authentication) answers an ordinary non-JSON type the same way.
      const plain = await send(`${server.url}/v1/sessions`, 'POST', { ...auths[1], 'Content-Type': 'text/plain' }, '{}');
      expect(plain.body).toMatchObject({ status: 415, code: 'unsupported_media_type' });
      // Request lines follow their answers: wait for all seven.
      await server.waitForOutput(/(?:"status":415[\s\S]*){7}/);
      const lines = linesOf(server.output);
      expect(lines.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
      expect(lines.filter((line) => line.msg === 'request completed' && line.status === 415).length).toBeGreaterThanOrEqual(6);
    } finally {
      await server.stop('SIGKILL');
    }
  });

  it('answers /healthz with 503 and Connection: close from the moment SIGTERM arrives', async () => {
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}` });
    // One keep-alive connection: the request after the signal arrives on a connection that the
    // server accepted before it, as a load balancer's health checks do.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await jsonRequest(agent, `${server.url}/healthz`, 'GET', undefined);
      expect(before.status).toBe(200);
      server.signal('SIGTERM');
      // Checked every 20 ms, as a load balancer's probe would be, until the signal is seen: the
      // connection never sits idle long enough for the drain to close it as idle (1 s), however
      // slow this machine is to get the signal to the server.
      let during = await jsonRequest(agent, `${server.url}/healthz`, 'GET', undefined);
      while (during.status === 200) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        during = await jsonRequest(agent, `${server.url}/healthz`, 'GET', undefined);
      }
      await server.waitForOutput(/SIGTERM: draining/);
      // The whole answer, so that a failed connection shows its error code.
      expect(during).toMatchObject({ status: 503 });
      expect(during.headers?.connection).toBe('close');
      expect(during.body).toMatchObject({ status: 503, code: 'journal_unavailable' });
      expect(await server.exited).toEqual({ code: 0, signal: null });
    } finally {
      agent.destroy();
      await server.stop('SIGKILL');
    }
  });

  it('loses no request line on SIGTERM: every answer a client got has its line, flushed before the exit', async () => {
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}` });
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const answered: string[] = [];
    try {
      const one = async (): Promise<void> => {
        const answer = await jsonRequest(agent, `${server.url}/healthz`, 'GET', undefined);
        const id = answer.headers?.['x-request-id'];
        if (typeof id === 'string') answered.push(id);
      };
      // Load first, then the signal while requests are still in flight, and more after it.
      const load = Array.from({ length: 16 }, async () => {
        for (let i = 0; i < 40; i += 1) await one();
      });
      while (answered.length < 200) await new Promise((resolve) => setTimeout(resolve, 5));
      server.signal('SIGTERM');
      await Promise.all(load);
      expect(await server.exited).toEqual({ code: 0, signal: null });
      const logged = new Set(linesOf(server.output).map((line) => line.request_id));
      expect(answered.length).toBeGreaterThan(200);
      expect(answered.filter((id) => !logged.has(id))).toEqual([]);
    } finally {
      agent.destroy();
      await server.stop('SIGKILL');
    }
  });

  it('prints a generated admin token once, on a line of its own marked as generated, and it opens the API', async () => {
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}`, PN_ADMIN_TOKEN: '' });
    try {
      await server.waitForOutput(/generated_admin_token/);
      const lines = linesOf(server.output);
      const marked = lines.filter((line) => line.generated_admin_token !== undefined);
      expect(marked).toHaveLength(1);
      const token = marked[0]!.generated_admin_token as string;
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(marked[0]!.msg).toMatch(/PN_ADMIN_TOKEN is not set: generated .*set PN_ADMIN_TOKEN for anything but a trial/);
      // Nowhere else, not even inside another line.
      expect(server.output.split(token)).toHaveLength(2);
      expect(marked[0]!.msg).not.toContain(token);
      expect((await jsonRequest(undefined, `${server.url}/v1/sessions`, 'POST', token)).status).toBe(201);
    } finally {
      await server.stop('SIGKILL');
    }
  });

  it('starts two nodes at the same instant on an empty PostgreSQL schema: both come up, no error line, every line JSON', async () => {
    for (let round = 0; round < 2; round += 1) {
      await inFreshSchema(async (databaseUrl) => {
        const nodes = await Promise.allSettled([0, 1].map(() => ServerProcess.start({ PN_DATABASE_URL: databaseUrl })));
        try {
          for (const node of nodes) {
            expect(node.status).toBe('fulfilled');
            const server = (node as PromiseFulfilledResult<ServerProcess>).value;
            expect((await jsonRequest(undefined, `${server.url}/healthz`, 'GET', undefined)).status).toBe(200);
            const lines = linesOf(server.output);
            expect(lines.filter((line) => ['warn', 'error', 'fatal'].includes(line.level))).toEqual([]);
          }
        } finally {
          for (const node of nodes) if (node.status === 'fulfilled') await node.value.stop('SIGTERM');
        }
      });
    }
    // Four server starts, on a machine that may be busy.
  }, 180_000);
});
