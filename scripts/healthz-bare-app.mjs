// The bare Nest + Fastify app the /healthz scripts measure this server against: one controller
// answering a constant, nothing of this project. Written under dist/ so that it resolves the
// project's own Nest packages.
import { writeFileSync } from 'node:fs';
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
