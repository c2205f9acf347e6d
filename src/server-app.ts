import { type INestApplication, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module.js';
import type { ServerConfig } from './config/server-config.js';

/**
 * Builds the HTTP server exactly as `main.ts` runs it: Nest's body parser off (bodies are read
 * strictly per route), open connections closed on shutdown (SSE must not hold it up), and the
 * OpenAPI document at `/docs` (JSON at `/docs-json`). Guard and problem filter come from the
 * module. Call `listen()` or `init()` on the result.
 */
export async function createServerApp(
  config: ServerConfig,
  options: { logger?: LoggerService | LogLevel[] | false } = {},
): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRoot(config), {
    bodyParser: false,
    forceCloseConnections: true,
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
