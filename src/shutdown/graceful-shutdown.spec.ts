import type { INestApplication, LoggerService } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { SessionEventStream } from '../sessions/session-event-stream.service.js';
import { GracefulShutdown } from './graceful-shutdown.js';
import { ShutdownState } from './shutdown-state.js';

const quiet: LoggerService = { log: () => undefined, warn: () => undefined, error: () => undefined };

// A real HTTP server whose requests wait until the test answers them, behind the parts of the
// application that GracefulShutdown uses.
async function serverWithHeldRequests(): Promise<{
  server: Server;
  held: ServerResponse[];
  shutdown: GracefulShutdown;
  closed: () => boolean;
}> {
  const held: ServerResponse[] = [];
  const server = createServer();
  let closed = false;
  const state = new ShutdownState();
  const app = {
    getHttpServer: () => server,
    get: (token: unknown) =>
      token === ShutdownState ? state : token === SessionEventStream ? { close: async () => undefined } : undefined,
    close: async () => {
      closed = true;
    },
  } as unknown as INestApplication;
  const shutdown = new GracefulShutdown(app, 5_000, quiet);
  // After GracefulShutdown's own listener, as the application's is.
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => held.push(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, held, shutdown, closed: () => closed };
}

// Waits until `check` holds, polling every 5 ms.
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

// The raw bytes a socket received until the server closed it.
function received(socket: Socket): Promise<string> {
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  return new Promise((resolve) => socket.on('close', () => resolve(text)));
}

describe('GracefulShutdown', () => {
  it('answers a request in flight when the drain begins with Connection: close, and keeps no count behind for one pipelined after it', async () => {
    const { server, held, shutdown, closed } = await serverWithHeldRequests();
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const bytes = received(socket);
    // Two requests at once on one connection (HTTP/1.1 pipelining): two responses in flight.
    socket.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => held.length === 2);
    const started = Date.now();
    const drained = shutdown.shutdown('SIGTERM');
    for (const response of held) response.end('done');
    await drained;
    // The first answer says the connection ends, and Node ends it after that answer: a client
    // that pipelines sends the second request again on a new connection (RFC 9112, 9.3.2).
    expect(await bytes).toMatch(/^HTTP\/1\.1 200[^]*connection: close[^]*done$/i);
    // Nothing was left counted in flight: the drain did not wait for its grace period.
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(closed()).toBe(true);
  });

  it('waits for a request still in flight and closes a connection only once it has been idle', async () => {
    const { server, held, shutdown, closed } = await serverWithHeldRequests();
    const port = (server.address() as AddressInfo).port;
    const busy = connect(port, '127.0.0.1');
    const idle = connect(port, '127.0.0.1');
    const busyBytes = received(busy);
    const idleBytes = received(idle);
    idle.write('GET /idle HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => held.length === 1);
    held[0]!.end('first');
    busy.write('GET /busy HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => held.length === 2);
    const started = Date.now();
    const drained = shutdown.shutdown('SIGTERM');
    // The idle connection ends after its idle time, the busy one stays open for its answer.
    const idleText = await idleBytes;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(idleText).toContain('first');
    expect(closed()).toBe(false);
    held[1]!.end('second');
    await drained;
    expect(await busyBytes).toMatch(/connection: close[\s\S]*second/i);
    expect(closed()).toBe(true);
  });
});
