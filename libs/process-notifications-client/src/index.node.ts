/*
 * The package's entry point in Node (the "node" export condition): everything index.ts exports,
 * with the keep-alive `node:http` transport as the default of clients built without `fetch` or
 * `transport`. Browsers and other runtimes get index.ts, on `fetch`.
 */
import { setDefaultTransport } from './http-transport.js';
import { nodeHttpTransport } from './node-http-transport.js';

setDefaultTransport(nodeHttpTransport());

export * from './index.js';
export { nodeHttpTransport, type NodeHttpTransportOptions } from './node-http-transport.js';
