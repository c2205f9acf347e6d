/*
 * The contract of the process notifications REST API (v1) as code, with no dependencies: its
 * closed sets, its bounds, its headers and the JSON shapes of its requests and answers. The
 * library, the server, the TypeScript client and the supervisor import it; nothing copies it.
 */
export * from './vocabulary.js';
export * from './contract-limits.js';
export * from './http-headers.js';
export type * from './api.types.js';
export type * from './admin.types.js';
