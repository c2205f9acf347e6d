import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a {@link HostileServer} answers, by the first segment of the path. */
export type HostileAnswer =
  /** 200 and a JSON-looking body that never ends. */
  | 'endless'
  /** 200 and one byte of a JSON-looking body every `TRICKLE_MS`, for ever. */
  | 'trickle'
  /** 500 and a body that never ends. */
  | 'endless-error'
  /** 200 and `<html>`: not JSON. */
  | 'not-json'
  /** An event stream whose one `data:` line never ends. */
  | 'endless-line'
  /** An event stream of `data:` lines that never ends its event with a blank line. */
  | 'endless-event'
  /** An event stream whose event is not JSON. */
  | 'event-not-json';

/** How often `trickle` sends its byte. */
export const TRICKLE_MS = 100;

const CHUNK = Buffer.alloc(64 * 1024, 'x');

/**
 * An HTTP server on 127.0.0.1 that plays a hostile or broken API server (issue 45): `GET
 * /<answer>/...` (any method, any rest of the path) answers as {@link HostileAnswer} says.
 * It counts the bytes the client took (the writes the socket accepted, with backpressure), so a
 * test checks how much the client read rather than its memory.
 */
export class HostileServer {
  /** Body bytes the sockets accepted, per answer kind, across requests. */
  readonly sent = new Map<HostileAnswer, number>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: HttpServer,
    /** `http://127.0.0.1:<port>` */
    readonly url: string,
  ) {}

  static async start(): Promise<HostileServer> {
    const server = createHttpServer();
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const hostile = new HostileServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('connection', (socket) => {
      hostile.sockets.add(socket);
      socket.on('close', () => hostile.sockets.delete(socket));
    });
    server.on('request', (request, response) => hostile.answer(request.url?.split('/')[1] as HostileAnswer, response));
    return hostile;
  }

  /** The base URL of a client that gets `answer` to every call. */
  urlOf(answer: HostileAnswer): string {
    return `${this.url}/${answer}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((closed) => this.server.close(() => closed()));
  }

  private count(answer: HostileAnswer, bytes: number): void {
    this.sent.set(answer, (this.sent.get(answer) ?? 0) + bytes);
  }

  private answer(answer: HostileAnswer, response: ServerResponse): void {
    const stream = (prefix: string, chunk: Buffer): void => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write(prefix);
      this.pump(answer, response, chunk);
    };
    switch (answer) {
      case 'endless':
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.write('{"status":"');
        return this.pump(answer, response, CHUNK);
      case 'endless-error':
        response.writeHead(500, { 'Content-Type': 'text/html' });
        return this.pump(answer, response, CHUNK);
      case 'trickle': {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        const timer = setInterval(() => {
          this.count(answer, 1);
          response.write(' ');
        }, TRICKLE_MS);
        response.on('close', () => clearInterval(timer));
        return;
      }
      case 'not-json':
        response.writeHead(200, { 'Content-Type': 'application/json' });
        return void response.end('<html>');
      case 'endless-line':
        return stream('data: ', CHUNK);
      case 'endless-event':
        return stream('', Buffer.from(`data: ${'x'.repeat(1022)}\n`.repeat(64)));
      case 'event-not-json':
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        return void response.write('id: 1\nevent: notification\ndata: {"command_id":\n\n');
      default:
        response.writeHead(404);
        response.end();
    }
  }

  // Writes `chunk` for ever, as fast as the client reads: what the socket accepts is counted.
  private pump(answer: HostileAnswer, response: ServerResponse, chunk: Buffer): void {
    while (!response.destroyed) {
      this.count(answer, chunk.length);
      if (!response.write(chunk)) return void response.once('drain', () => this.pump(answer, response, chunk));
    }
  }
}
