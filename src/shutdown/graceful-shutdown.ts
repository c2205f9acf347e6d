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

/** What shutdown knows of one open connection. */
interface ConnectionState {
  /** When its last request closed (or it opened), Date.now(). */
  idleSince: number;
  /**
   * Its first response not yet closed (none: the connection is idle), and those a pipelining
   * client queued behind it; none is queued while `current` is empty.
   */
  current: ServerResponse | undefined;
  queued: ServerResponse[] | undefined;
}

/**
 * Shuts the HTTP server down without resetting a connection a client is using. On `shutdown()`:
 * stop accepting connections; answer every request that still arrives on an open connection
 * (with `Connection: close`, so the client opens its next one elsewhere); end the event streams;
 * wait for in-flight requests; close keep-alive connections once they have been idle a moment;
 * only then close the application (and with it the database). Past `graceMs` the remaining
 * connections are destroyed and the application is closed anyway.
 */
export class GracefulShutdown {
  // One entry per open connection, made when it opens and removed when it closes: no request
  // enters or leaves a long-lived collection. A Set that every response entered and left (as
  // this was) kept the requests' young objects alive past young collections, and the heap grew
  // between full ones: /healthz in memory cost 35 µs of CPU per request instead of 26
  // (docs/benchmarks.md, "What /healthz costs").
  private readonly connections = new Map<Socket, ConnectionState>();
  private draining?: Promise<void>;

  constructor(
    private readonly app: INestApplication,
    private readonly graceMs: number,
    private readonly logger: LoggerService,
  ) {
    const server = app.getHttpServer() as Server;
    server.on('connection', (socket: Socket) => {
      this.connections.set(socket, { idleSince: Date.now(), current: undefined, queued: undefined });
      socket.once('close', () => this.connections.delete(socket));
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
    if (this.draining) response.setHeader('Connection', 'close');
    const connection = this.connections.get(socket);
    if (!connection) return;
    // One response at a time on a connection, unless its client pipelines.
    if (connection.current === undefined) connection.current = response;
    else (connection.queued ??= []).push(response);
    // `on`, not `once`: a response closes once, and nothing emits on it after that.
    response.on('close', () => {
      if (connection.current === response) connection.current = connection.queued?.shift();
      else {
        const index = connection.queued?.indexOf(response) ?? -1;
        if (index >= 0) connection.queued!.splice(index, 1);
      }
      if (connection.current === undefined) connection.idleSince = Date.now();
    });
  }

  /** Every response begun and not yet closed. */
  private *responses(): Iterable<ServerResponse> {
    for (const { current, queued } of this.connections.values()) {
      if (current) yield current;
      if (queued) yield* queued;
    }
  }

  private async drain(signal?: string): Promise<void> {
    // Before anything else: /healthz answers 503 from now on.
    this.app.get(ShutdownState).begin();
    const server = this.app.getHttpServer() as Server;
    const deadline = Date.now() + this.graceMs;
    this.logger.log(`${signal ?? 'shutdown'}: draining ${[...this.responses()].length} requests on ${this.connections.size} connections`);
    // Stop listening only: http.Server#close would also close idle keep-alive connections at
    // once, and a client that is sending its next request on one of them would see a reset. Not
    // awaited: its callback waits for every connection to end, which the loop below brings about.
    NetServer.prototype.close.call(server);
    for (const response of this.responses()) if (!response.headersSent) response.setHeader('Connection', 'close');
    // Open event streams end now (clients resume elsewhere with Last-Event-ID).
    await this.app.get(SessionEventStream).close();

    const ended = new Map<Socket, number>();
    while (this.connections.size > 0 && Date.now() < deadline) {
      const now = Date.now();
      for (const [socket, { current, idleSince }] of this.connections) {
        if (current) continue;
        const endedAt = ended.get(socket);
        if (endedAt === undefined) {
          if (now - idleSince < IDLE_CLOSE_MS) continue;
          socket.end();
          ended.set(socket, now);
        } else if (now - endedAt >= LINGER_MS) {
          // Nothing in flight on it and its client did not answer the close: no response is lost.
          socket.destroy();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if (this.connections.size > 0) {
      this.logger.warn(`grace period of ${this.graceMs} ms over: closing ${this.connections.size} connections`);
      for (const socket of this.connections.keys()) socket.destroy();
    }
    await this.app.close();
  }
}
