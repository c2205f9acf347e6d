import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';

// A bare Nest application on Fastify answering a constant, in a worker thread like the app (see
// http-server.worker.ts): the framework's own cost per request, without anything this project adds.
@Controller('healthz')
class ConstantController {
  @Get()
  check(): { status: 'ok' } {
    return { status: 'ok' };
  }
}

@Module({ controllers: [ConstantController] })
class BareModule {}

const app = await NestFactory.create<NestFastifyApplication>(BareModule, new FastifyAdapter({ logger: false }), { logger: false });
await app.listen(0, '127.0.0.1');
parentPort!.on('message', (message: unknown) => {
  if (message !== 'close') return;
  void app.close().then(() => parentPort!.postMessage('closed'));
});
parentPort!.postMessage({ port: (app.getHttpServer().address() as AddressInfo).port });
