import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TRICKLE_MS } from './hostile-server.js';

/**
 * A TCP server on 127.0.0.1 that sends the status line and headers of its answer one byte every
 * `TRICKLE_MS`, for ever: a timeout of idle time never fires on it.
 */
export class TricklingHeadersServer {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>` */
    readonly url: string,
  ) {}

  static async start(): Promise<TricklingHeadersServer> {
    const server = createServer();
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const trickling = new TricklingHeadersServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('connection', (socket) => {
      trickling.sockets.add(socket);
      const header = 'HTTP/1.1 200 OK\r\nX-Padding: ';
      let sent = 0;
      const timer = setInterval(() => socket.write(header[sent++] ?? 'x'), TRICKLE_MS);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        trickling.sockets.delete(socket);
      });
    });
    return trickling;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((closed) => this.server.close(() => closed()));
  }
}
