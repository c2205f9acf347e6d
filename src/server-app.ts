import { type INestApplication, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module.js';
import type { ServerConfig } from './config/server-config.js';

/**
 * Builds the HTTP server exactly as `main.ts` runs it: Nest's body parser off (bodies are read
 * strictly per route) and the OpenAPI document at `/docs` (JSON at `/docs-json`). On close the
 * server stops accepting, SSE streams end (SessionEventStream), in-flight requests finish, and
 * only then does the database close. Guard and problem filter come from the
 * module. Call `listen()` or `init()` on the result.
 */
export async function createServerApp(
  config: ServerConfig,
  options: { logger?: LoggerService | LogLevel[] | false } = {},
): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRoot(config), {
    bodyParser: false,
    logger: options.logger,
  });
  app.getHttpAdapter().getInstance().disable('x-powered-by');
  const document = new DocumentBuilder()
    .setTitle('Process notifications')
    .setDescription('Durable, journal-first delivery of process completion notifications to agent loops. Errors are RFC 9457 problem documents.')
    .setVersion('1')
    .addBearerAuth()
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, document));
  return app;
}
