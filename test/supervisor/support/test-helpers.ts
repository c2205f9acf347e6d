import { createServer } from 'node:net';
import { ServerProcess } from '../../support/server-process.js';

/** A loopback port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
    probe.on('error', fail);
  });
}

/** Polls `condition` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  condition: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((next) => setTimeout(next, 50));
  }
}

/** The real server on a SQLite file, on `port` (its own choice when omitted). */
export function startServer(databaseFile: string, options: { port?: number; env?: Record<string, string> } = {}): Promise<ServerProcess> {
  return ServerProcess.start({
    PN_DATABASE_URL: `sqlite:${databaseFile}`,
    ...(options.port === undefined ? {} : { PORT: String(options.port) }),
    ...options.env,
  });
}
