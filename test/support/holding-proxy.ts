import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to a local server that can hold one chunk the client sends (the first one
 * containing a given text, a COMMIT say) for a while before passing it on, as a slow network
 * delivers a message late. A held chunk reaches the server even if the client gave up on its
 * connection meanwhile; everything the client sent after it waits behind it.
 */
export class HoldingProxy {
  private armed?: { text: Buffer; ms: number; held: () => void };
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static start(targetPort: number): Promise<HoldingProxy> {
    const server = createServer();
    const proxy = new HoldingProxy(server);
    server.on('connection', (client) => proxy.relay(client, targetPort));
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(proxy)));
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Holds the next client chunk that contains `text` for `ms`; resolves when one is held. */
  holdNext(text: string, ms: number): Promise<void> {
    return new Promise((held) => (this.armed = { text: Buffer.from(text), ms, held }));
  }

  private relay(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    this.sockets.add(client).add(upstream);
    // Client chunks not yet passed on; while one is held, later ones queue behind it.
    let holding: Promise<void> = Promise.resolve();
    let pending = 0;
    let clientGone = false;
    client.on('data', (chunk: Buffer) => {
      const armed = this.armed;
      let delay: Promise<void> = Promise.resolve();
      if (armed && chunk.includes(armed.text)) {
        this.armed = undefined;
        armed.held();
        delay = new Promise((resolve) => setTimeout(resolve, armed.ms));
      }
      pending++;
      holding = holding
        .then(() => delay)
        .then(() => {
          if (!upstream.destroyed) upstream.write(chunk);
          pending--;
          if (clientGone && pending === 0) upstream.end();
        });
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!client.destroyed) client.write(chunk);
    });
    const clientClosed = (): void => {
      clientGone = true;
      // What the client sent before it left still arrives (late), then the connection ends.
      if (pending === 0) upstream.end();
    };
    client.on('end', clientClosed);
    client.on('close', clientClosed);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    upstream.on('close', () => client.destroy());
    client.on('close', () => this.sockets.delete(client));
    upstream.on('close', () => this.sockets.delete(upstream));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
