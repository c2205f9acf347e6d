import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemDocumentOf } from './problem-document.js';

/**
 * The one place where errors become HTTP answers, by the rows of the problem table
 * (problem-table.ts): every library error (by its class and stable `code`),
 * every refusal of the HTTP layer and anything unexpected is answered with an RFC 9457 problem
 * document (`application/problem+json`). Unexpected errors are logged and answered with a
 * generic 500 that reveals nothing about them.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.answer(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  /**
   * Answers `exception` as a problem document. Also Fastify's `frameworkErrors` (server-app.ts),
   * for what fails before a request reaches Nest, such as a path the router cannot decode.
   */
  answer(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const { status, headers, body } = problemDocumentOf(exception, request, (unexpected) => this.logUnexpected(unexpected));
    if (reply.raw.headersSent) {
      // A stream already started (SSE): nothing can be answered any more.
      reply.raw.end();
      return;
    }
    // As bytes: Fastify would add `; charset=utf-8` to a JSON media type sent as a string.
    void reply
      .code(status)
      .headers(headers)
      .header('content-type', 'application/problem+json')
      .send(Buffer.from(JSON.stringify(body)));
  }

  /** Logs an error no row of the problem table takes (its answer reveals nothing about it). */
  logUnexpected(exception: unknown): void {
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
  }
}
