import { Worker } from 'node:worker_threads';

/** A server running in a worker thread: its port, and `close()` to shut it down. */
export interface ServerWorker {
  readonly port: number;
  /**
   * Milliseconds the worker's event loop has been busy since it started: what the server spent
   * on requests, whether or not the load generator kept it saturated.
   */
  busyMs(): number;
  close(): Promise<void>;
}

function nextMessage(worker: Worker): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => {
      worker.off('message', done);
      reject(error instanceof Error ? error : new Error(`server worker exited with code ${String(error)}`));
    };
    const done = (message: unknown) => {
      worker.off('error', fail).off('exit', fail);
      resolve(message);
    };
    worker.once('message', done).once('error', fail).once('exit', fail);
  });
}

/**
 * Starts a server script in a worker thread and waits until it listens. The script answers
 * `{port}` once listening and `'closed'` after a `'close'` message (see http-server.worker.ts).
 * @param script e.g. `new URL('./http-server.worker.js', import.meta.url)`
 * @param workerData what the script reads, e.g. the app's `ServerConfig`
 */
export async function startServerWorker(script: URL, workerData?: unknown): Promise<ServerWorker> {
  const worker = new Worker(script, { workerData });
  const { port } = (await nextMessage(worker)) as { port: number };
  return {
    port,
    busyMs: () => worker.performance.eventLoopUtilization().active,
    async close() {
      worker.postMessage('close');
      await nextMessage(worker);
      await worker.terminate();
    },
  };
}
