import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';

// A bare node:http server answering a constant JSON body, in a worker thread like the app (see
// http-server.worker.ts): what this machine and autocannon do with no framework at all.
const server = createServer((_request, response) => {
  response.setHeader('content-type', 'application/json');
  response.end('{"status":"ok"}');
});
server.listen(0, '127.0.0.1', () => parentPort!.postMessage({ port: (server.address() as AddressInfo).port }));
parentPort!.on('message', (message: unknown) => {
  if (message !== 'close') return;
  server.closeAllConnections();
  server.close(() => parentPort!.postMessage('closed'));
});
