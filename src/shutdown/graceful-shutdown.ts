import type { INestApplication, LoggerService } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { SessionEventStream } from '../sessions/session-event-stream.service.js';
import { ShutdownState } from './shutdown-state.js';

/** Signals that end the server gracefully (SIGHUP and SIGUSR2 too: never a silent hard stop). */
export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR2'] as const;

// A keep-alive connection with no request for this long while draining is closed.
const IDLE_CLOSE_MS = 1_000;
// A closed idle connection whose client does not close its side (half-open, or a client that
// sends nothing) is destroyed this long after: it must not hold the lease release up.
const LINGER_MS = 250;
const POLL_MS = 25;

/**
 * Shuts the HTTP server down without resetting a connection a client is using. On `shutdown()`:
 * stop accepting connections; answer every request that still arrives on an open connection
 * (with `Connection: close`, so the client opens its next one elsewhere); end the event streams;
 * wait for in-flight requests; close keep-alive connections once they have been idle a moment;
 * only then close the application (and with it the database). Past `graceMs` the remaining
 * connections are destroyed and the application is closed anyway.
 */
export class GracefulShutdown {
  private readonly inFlight = new Map<Socket, number>();
  private readonly idleSince = new Map<Socket, number>();
  private readonly responses = new Set<ServerResponse>();
  private draining?: Promise<void>;

  constructor(
    private readonly app: INestApplication,
    private readonly graceMs: number,
    private readonly logger: LoggerService,
  ) {
    const server = app.getHttpServer() as Server;
    server.on('connection', (socket: Socket) => {
      this.inFlight.set(socket, 0);
      this.idleSince.set(socket, Date.now());
      socket.once('close', () => {
        this.inFlight.delete(socket);
        this.idleSince.delete(socket);
      });
    });
    // Before the application's own listener, so the header is set before any response starts.
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => this.track(request.socket, response));
  }

  /** Drains and closes; resolves when the application is closed. Idempotent. */
  shutdown(signal?: string): Promise<void> {
    this.draining ??= this.drain(signal);
    return this.draining;
  }

  private track(socket: Socket, response: ServerResponse): void {
    this.inFlight.set(socket, (this.inFlight.get(socket) ?? 0) + 1);
    this.responses.add(response);
    if (this.draining) response.setHeader('Connection', 'close');
    response.once('close', () => {
      this.responses.delete(response);
      const left = (this.inFlight.get(socket) ?? 1) - 1;
      if (!this.inFlight.has(socket)) return;
      this.inFlight.set(socket, left);
      if (left === 0) this.idleSince.set(socket, Date.now());
    });
  }

  private async drain(signal?: string): Promise<void> {
    // Before anything else: /healthz answers 503 from now on.
    this.app.get(ShutdownState).begin();
    const server = this.app.getHttpServer() as Server;
    const deadline = Date.now() + this.graceMs;
    this.logger.log(`${signal ?? 'shutdown'}: draining ${this.responses.size} requests on ${this.inFlight.size} connections`);
    // Stop listening only: http.Server#close would also close idle keep-alive connections at
    // once, and a client that is sending its next request on one of them would see a reset. Not
    // awaited: its callback waits for every connection to end, which the loop below brings about.
    NetServer.prototype.close.call(server);
    for (const response of this.responses) if (!response.headersSent) response.setHeader('Connection', 'close');
    // Open event streams end now (clients resume elsewhere with Last-Event-ID).
    await this.app.get(SessionEventStream).close();

    const ended = new Map<Socket, number>();
    while (this.inFlight.size > 0 && Date.now() < deadline) {
      const now = Date.now();
      for (const [socket, count] of this.inFlight) {
        if (count > 0) continue;
        const endedAt = ended.get(socket);
        if (endedAt === undefined) {
          if (now - (this.idleSince.get(socket) ?? now) < IDLE_CLOSE_MS) continue;
          socket.end();
          ended.set(socket, now);
        } else if (now - endedAt >= LINGER_MS) {
          // Nothing in flight on it and its client did not answer the close: no response is lost.
          socket.destroy();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if (this.inFlight.size > 0) {
      this.logger.warn(`grace period of ${this.graceMs} ms over: closing ${this.inFlight.size} connections`);
      for (const socket of this.inFlight.keys()) socket.destroy();
    }
    await this.app.close();
  }
}
