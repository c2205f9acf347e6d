import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { createServerApp } from '../../src/server-app.js';
import type { ServerConfig } from '../../src/config/server-config.js';

// The real server app in a worker thread of the bench process, so that it has an event loop of
// its own and the load generator in the main thread does not slow it down. It answers the
// port once listening on 127.0.0.1, and closes the app when told to.
const config = workerData as ServerConfig;
const app = await createServerApp(config);
await app.listen(config.port, '127.0.0.1');
parentPort!.on('message', (message: unknown) => {
  if (message !== 'close') return;
  void app.close().then(() => parentPort!.postMessage('closed'));
});
parentPort!.postMessage({ port: (app.getHttpServer().address() as AddressInfo).port });
