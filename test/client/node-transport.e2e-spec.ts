import { NetworkError, ProcessNotificationsClient, ProblemError } from 'process-notifications-client';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { nodeHttpTransport } from '../../libs/process-notifications-client/src/node-http-transport.js';
import { ADMIN_TOKEN, createHttpTestApp, type HttpTestApp } from '../e2e/support/http-test-app.js';

// The client's Node transport (issue 37): node:http with a keep-alive pool, against the real server.
describe('the node:http transport', () => {
  let server: HttpTestApp;
  const connections: unknown[] = [];
  beforeAll(async () => {
    server = await createHttpTestApp();
    (server.app.getHttpServer() as import('node:http').Server).on('connection', (socket) => connections.push(socket));
  });
  afterAll(() => server.close());

  it('sends every call of one client over the connections of its pool, and answers as the fetch transport does', async () => {
    const transport = nodeHttpTransport();
    connections.length = 0;
    const admin = new ProcessNotificationsClient({ baseUrl: server.url, token: ADMIN_TOKEN, transport });
    const session = await admin.createSession();
    const client = admin.withToken(session.token);
    const { loop_id: loopId } = await client.openLoop(session.session_id);
    for (let i = 0; i < 50; i++) {
      const delivery = await client.deliverCompletion({
        command_id: randomUUID(),
        session_id: session.session_id,
        loop_id: loopId,
        process_handle: 'job',
        state: 'exited',
        reason: 'exited',
      });
      expect(delivery).toMatchObject({ disposition: 'accepted', appended: true });
    }
    // 53 calls one after another, by two clients sharing the transport: one connection, kept alive.
    expect(connections).toHaveLength(1);
    const error = await client
      .consume(session.session_id, loopId, randomUUID(), { signal: new AbortController().signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    const unknown = await client.getLoop(session.session_id, randomUUID()).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 404, code: 'loop_not_found' });
  });

  it('turns no answer in time, and no server, into a NetworkError; a caller abort into its reason', async () => {
    // A server that accepts connections and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    try {
      const slow = new ProcessNotificationsClient({
        baseUrl: `http://127.0.0.1:${port}`,
        transport: nodeHttpTransport(),
        requestTimeoutMs: 200,
      });
      await expect(slow.health()).rejects.toBeInstanceOf(NetworkError);
      const abort = new AbortController();
      const reason = new Error('stopped by the caller');
      const waiting = slow.health({ signal: abort.signal });
      abort.abort(reason);
      await expect(waiting).rejects.toBe(reason);
    } finally {
      silent.close();
    }
    const nobody = new ProcessNotificationsClient({ baseUrl: `http://127.0.0.1:${port}`, transport: nodeHttpTransport() });
    await expect(nobody.health()).rejects.toMatchObject({ name: 'NetworkError', message: expect.stringContaining('ECONNREFUSED') });
  });
});
