import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

// Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux ABI Node runs on).
const USER_HZ = 100;

/**
 * The CPU time a process has used so far, all its threads (user and system), in ms, from Linux's
 * `/proc/<pid>/stat` (10 ms resolution); undefined where there is no such file. What a server
 * spends per item is a second figure for an A/B beside its rate; it moves with the machine too.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command's parenthesis (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}
