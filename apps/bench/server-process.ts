import { spawn, type ChildProcess } from 'node:child_process';

const MAIN = new URL('../../src/main.js', import.meta.url).pathname;

/** A server (`dist/src/main.js`) in a child process of its own, listening on a free port. */
export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
}

/**
 * Starts the real server with `env` added to this process's (`PORT=0`, `PN_LOG_LEVEL=warn`
 * unless given) and Node flags `nodeArgs`; resolves once it listens. With `showWarnings`, what it
 * writes to stderr and its warnings on stdout are shown, so a failed row says why.
 */
export function startServerProcess(
  env: Record<string, string>,
  { nodeArgs = [], showWarnings = false }: { nodeArgs?: readonly string[]; showWarnings?: boolean } = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, MAIN], {
    env: { ...process.env, PORT: '0', PN_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const port = /Listening on port (\d+)/.exec(output)?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}`, child });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    if (showWarnings) {
      child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
      child.stdout!.on('data', (chunk: Buffer) => {
        if (/"level":(40|50|60)/.test(chunk.toString())) process.stderr.write(chunk);
      });
    }
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)));
  });
}
