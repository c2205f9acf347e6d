// What the /healthz scripts start: this server's environment for a journal in memory or in a
// file, and the bare Nest + Fastify app they measure it against (one controller answering a
// constant, nothing of this project, written under dist/ so that it resolves the project's own
// Nest packages).
import { writeFileSync } from 'node:fs';
import { setTimeout } from 'node:timers/promises';
import { join } from 'node:path';

/**
 * Writes the bare app to `<root>/dist/healthz-bare.mjs` and returns its path; it listens on
 * 127.0.0.1 and the port in `PORT`. The caller removes it when done.
 */
export function writeBareHealthzApp(root) {
  const path = join(root, 'dist', 'healthz-bare.mjs');
  writeFileSync(
    path,
    `import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { __decorate } from 'tslib';
class Constant { check() { return { status: 'ok' }; } }
__decorate([Get()], Constant.prototype, 'check', null);
const controller = __decorate([Controller('healthz')], Constant);
const module = __decorate([Module({ controllers: [controller] })], class {});
const app = await NestFactory.create(module, new FastifyAdapter({ logger: false }), { logger: false });
await app.listen(Number(process.env.PORT), '127.0.0.1');
`,
  );
  return path;
}

/**
 * The environment of a server on `port` answering `/healthz`: quiet below `warn`, a fixed admin
 * token, and the journal in memory or in `<dir>/journal.db`.
 */
export function healthzServerEnv(kind, dir, port) {
  return {
    ...process.env,
    PORT: String(port),
    PN_LOG_LEVEL: 'warn',
    PN_ADMIN_TOKEN: 'x'.repeat(40),
    PN_DATABASE_URL: kind === 'memory' ? 'sqlite::memory:' : `sqlite:${join(dir, 'journal.db')}`,
  };
}

/**
 * Resolves once `url` answers 2xx; throws if `server` (a child process) exits first or
 * `timeoutMs` passes.
 */
export async function waitForHealthz(url, server, timeoutMs, pollMs) {
  const deadline = Date.now() + timeoutMs;
  while (
    !(await globalThis.fetch(url).then(
      (response) => response.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error('the server did not answer /healthz');
    await setTimeout(pollMs);
  }
}
