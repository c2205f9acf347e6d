import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import type { Logger } from 'pino';
import { AppModule } from './app.module.js';
import type { ServerConfig } from './config/server-config.js';
import { createRootLogger } from './logging/root-logger.js';

/**
 * Builds the HTTP server exactly as `main.ts` runs it: Nest's body parser off (bodies are read
 * strictly per route) and the OpenAPI document at `/docs` (JSON at `/docs-json`). On close the
 * server stops accepting, SSE streams end (SessionEventStream), in-flight requests finish, and
 * only then does the database close. Guard and problem filter come from the
 * module. Logs are JSON lines at `config.logLevel` (through `options.logger` when given).
 * Call `listen()` or `init()` on the result.
 */
export async function createServerApp(config: ServerConfig, options: { logger?: Logger } = {}): Promise<INestApplication> {
  const logger = options.logger ?? createRootLogger(config.logLevel);
  // Buffered until the JSON logger takes over, so even Nest's start-up lines are JSON.
  const app = await NestFactory.create(AppModule.forRoot(config, logger), { bodyParser: false, bufferLogs: true });
  app.useLogger(app.get(PinoNestLogger));
  app.getHttpAdapter().getInstance().disable('x-powered-by');
  const document = new DocumentBuilder()
    .setTitle('Process notifications')
    .setDescription(
      'Durable, journal-first delivery of process completion notifications to agent loops. Errors are RFC 9457 problem documents.',
    )
    .setVersion('1')
    // Opaque random tokens, not JWTs.
    .addSecurity('bearer', {
      type: 'http',
      scheme: 'bearer',
      description: 'The admin token (PN_ADMIN_TOKEN) or a session token returned once by POST /v1/sessions.',
    })
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, document));
  return app;
}
