import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { jsonRequest } from '../support/http-client.js';
import { notification as notificationFor } from '../support/test-app.js';
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
      const { session_id: sessionId, token } = (await jsonRequest(undefined, `${server.url}/v1/sessions`, 'POST', SERVER_ADMIN_TOKEN))
        .body as {
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
      expect(server.output).not.toMatch(/"level":"(?:error|fatal)"/);
      // Logged and counted once, as a request nobody was answered.
      await server.waitForOutput(/"status":"aborted"/);
      const aborted = server.output
        .split('\n')
        .filter((line) => line.includes('"msg":"request completed"') && line.includes('"status":"aborted"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(aborted).toEqual([
        expect.objectContaining({ method: 'POST', route: '/v1/sessions/:sid/process-completions', duration_ms: expect.any(Number) }),
      ]);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toContain('pn_http_requests_total{route="/v1/sessions/:sid/process-completions",status="aborted"} 1\n');
    } finally {
      await server.stop('SIGKILL');
    }
  });

  it('listens on every interface, as Node does by default: IPv4 and, where the host has it, IPv6', async () => {
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}` });
    try {
      const port = new URL(server.url).port;
      const hosts = ['127.0.0.1', ...(hasIpv6Loopback() ? ['[::1]'] : [])];
      for (const host of hosts) expect((await fetch(`http://${host}:${port}/healthz`)).status).toBe(200);
      // And on an address that is not loopback, when the machine has one.
      const external = Object.values(networkInterfaces())
        .flat()
        .find((address) => address?.family === 'IPv4' && !address.internal);
      if (external) expect((await fetch(`http://${external.address}:${port}/healthz`)).status).toBe(200);
    } finally {
      await server.stop('SIGKILL');
    }
  });

  describe('logs (spec section 11)', () => {
    const requestWith = (url: string, method: string, headers: Record<string, string>, body?: unknown) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const req = request(url, { method, headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json' } : {}) } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }),
          );
        });
        req.on('error', reject);
        req.end(payload);
      });
    const lines = (output: string): Record<string, unknown>[] =>
      output
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);

    it('are JSON lines, one per request with method, route, status, duration and the request id (the server’s own; a client’s apart); no token or body', async () => {
      const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}` });
      try {
        const admin = { Authorization: `Bearer ${SERVER_ADMIN_TOKEN}` };
        const created = await requestWith(`${server.url}/v1/sessions`, 'POST', { ...admin, 'X-Request-Id': 'client-id-42' });
        expect(created.status).toBe(201);
        expect(created.headers['x-request-id']).toBe('client-id-42');
        const { session_id: sessionId, token } = created.body as { session_id: string; token: string };
        const auth = { Authorization: `Bearer ${token}` };
        const loop = await requestWith(`${server.url}/v1/sessions/${sessionId}/loops`, 'POST', auth, {});
        const secret = 'SECRET-PROCESS-HANDLE-xyz';
        const body = { ...notificationFor(sessionId, loop.body.loop_id as string), process_handle: secret };
        const delivered = await requestWith(`${server.url}/v1/sessions/${sessionId}/process-completions`, 'POST', auth, body);
        expect(delivered.status).toBe(202);
        const generatedId = delivered.headers['x-request-id'] as string;
        expect(generatedId).toMatch(/^[0-9a-f-]{36}$/);
        // A path the router cannot decode is answered before any middleware, and logged all the same.
        const undecodable = await requestWith(`${server.url}/v1/sessions/%ZZ`, 'GET', { ...admin, 'X-Request-Id': 'client-id-bad-url' });
        expect(undecodable.status).toBe(400);
        expect(undecodable.headers['x-request-id']).toBe('client-id-bad-url');

        await server.waitForOutput(new RegExp(`"request_id":"${generatedId}"`));
        await server.waitForOutput(/"client_request_id":"client-id-bad-url"/);
        const logged = lines(server.output);
        // A client's id is echoed, and logged apart from the server's own (issue 36).
        expect(logged.find((line) => line.client_request_id === 'client-id-42')).toEqual({
          level: 'info',
          time: expect.any(String),
          pid: expect.any(Number),
          hostname: expect.any(String),
          request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          client_request_id: 'client-id-42',
          method: 'POST',
          route: '/v1/sessions',
          status: 201,
          duration_ms: expect.any(Number),
          msg: 'request completed',
        });
        expect(logged.find((line) => line.request_id === generatedId)).toMatchObject({
          method: 'POST',
          route: '/v1/sessions/:sid/process-completions',
          status: 202,
        });
        expect(logged.find((line) => line.client_request_id === 'client-id-bad-url')).toMatchObject({
          method: 'GET',
          route: 'unmatched',
          status: 400,
          msg: 'request completed',
        });
        // Nest's own start-up lines are JSON too (every line parsed above).
        expect(logged.some((line) => line.context === 'NestApplication')).toBe(true);
        for (const forbidden of [SERVER_ADMIN_TOKEN, token, secret]) expect(server.output).not.toContain(forbidden);
      } finally {
        await server.stop('SIGKILL');
      }
    });

    it('PN_LOG_LEVEL=warn drops the request lines but still says where the server listens', async () => {
      const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}`, PN_LOG_LEVEL: 'warn' });
      try {
        expect((await requestWith(`${server.url}/healthz`, 'GET', {})).status).toBe(200);
        // The request is answered; a stop makes sure any line it would have logged is out.
        await server.stop('SIGTERM');
        const logged = lines(server.output);
        expect(logged.filter((line) => line.msg === 'request completed')).toEqual([]);
        expect(logged.filter((line) => line.level === 'info').map((line) => line.msg)).toEqual([
          expect.stringMatching(/^Listening on port \d+/),
        ]);
      } finally {
        await server.stop('SIGKILL');
      }
    });
  });
});

function hasIpv6Loopback(): boolean {
  return Object.values(networkInterfaces())
    .flat()
    .some((address) => address?.family === 'IPv6' && address.address === '::1');
}
