import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import {
  DeliveryStoppedError,
  IdempotencyCollisionError,
  JournalUnavailableError,
  OwnerUnavailableError,
  ProcessNotificationsError,
  ValidationError,
  type StopCause,
} from 'nestjs-process-notifications';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENT_REPLAYED_HEADER, RETRY_AFTER_HEADER } from 'process-notifications-contract';
import { ALLOW_HEADER } from './api-response-headers.js';
import { allowedMethods } from './route-table.js';
import { HttpProblemError } from './http-problem.error.js';
import { PROBLEM_TYPES, problem, type Problem, type ProblemCode } from './problem-types.js';

/**
 * Seconds a client should wait before retrying, by what it waits for: a full pending set frees
 * room as soon as the loop consumes, a journal outage is usually short, and a stopped loop does
 * not come back (the answer is final; a client that retries anyway should not hammer it).
 */
const RETRY_AFTER_SECONDS: Readonly<Record<StopCause | 'journal_unavailable', string>> = {
  inbox_full: '1',
  misrouted: '5',
  loop_stopped: '60',
  journal_unavailable: '1',
};

/**
 * The code of an HttpException by its status: Nest's own exceptions and the Fastify errors it
 * maps to them (a `Content-Type` its parser rejects is a 415, a body over Fastify's limit a 413).
 * A client's mistake is never a 500; any other 4xx is answered as a bad field of the request.
 */
const CODE_OF_STATUS: Readonly<Record<number, ProblemCode>> = {
  400: 'invalid_field',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/**
 * The one place where errors become HTTP answers: every library error (by its stable `code`),
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
    const headers: Record<string, string> = {};
    const body = this.toProblem(exception, headers, request);
    if (reply.raw.headersSent) {
      // A stream already started (SSE): nothing can be answered any more.
      reply.raw.end();
      return;
    }
    // As bytes: Fastify would add `; charset=utf-8` to a JSON media type sent as a string.
    void reply
      .code(body.status)
      .headers(headers)
      .header('content-type', 'application/problem+json')
      .send(Buffer.from(JSON.stringify(body)));
  }

  private toProblem(exception: unknown, headers: Record<string, string>, request: FastifyRequest): Problem {
    if (exception instanceof ProcessNotificationsError && exception.code in PROBLEM_TYPES) {
      if (exception instanceof JournalUnavailableError) {
        // Logged once per outage by the journal writer, not once per request.
        headers[RETRY_AFTER_HEADER] = RETRY_AFTER_SECONDS.journal_unavailable;
        // Said only when true (issue 45): a write whose transaction was under way may commit late.
        return exception.mayHaveCommitted
          ? {
              ...problem(
                exception.code,
                'The journal did not confirm the write in time: it may have committed after all, and then counts like any ' +
                  'committed write. Retry the same request to learn which (docs/contract.md, Under faults).',
              ),
              may_have_committed: true,
            }
          : problem(
              exception.code,
              'The journal is unavailable; nothing was written and nothing was dispatched. Retry with the same body.',
            );
      }
      const body = problem(exception.code, exception.message);
      if (exception.disposition) body.disposition = exception.disposition;
      if (exception instanceof ValidationError) body.field = exception.field;
      if (exception instanceof IdempotencyCollisionError) body.sequence = exception.sequence;
      if (exception instanceof OwnerUnavailableError) headers[RETRY_AFTER_HEADER] = String(exception.retryAfterSeconds);
      if (exception instanceof DeliveryStoppedError) {
        body.cause = exception.stopCause;
        body.loop_id = exception.loopId;
        headers[RETRY_AFTER_HEADER] = RETRY_AFTER_SECONDS[exception.stopCause];
        if (!exception.appended) headers[IDEMPOTENT_REPLAYED_HEADER] = 'true';
      }
      return body;
    }
    if (exception instanceof HttpProblemError) {
      if (exception.code === 'unauthorized') headers['WWW-Authenticate'] = 'Bearer';
      if (exception.code === 'stream_limit_reached') headers[RETRY_AFTER_HEADER] = '1';
      if (exception.code === 'journal_unavailable') headers[RETRY_AFTER_HEADER] = RETRY_AFTER_SECONDS.journal_unavailable;
      return problem(exception.code, exception.message);
    }
    // The router could not percent-decode the path (Fastify's FST_ERR_BAD_URL).
    if ((exception as { code?: unknown } | undefined)?.code === 'FST_ERR_BAD_URL') {
      return { ...problem('invalid_field', 'A path parameter is not valid percent-encoding.'), field: 'path' };
    }
    // Nest's own answer for a request no route matches: a wrong method, or no such path.
    if (exception instanceof HttpException && exception.getStatus() === 404) {
      const allowed = allowedMethods(request);
      if (allowed.length === 0) return problem('not_found', 'No such route.');
      headers[ALLOW_HEADER] = allowed.join(', ');
      return problem('method_not_allowed', `${request.method ?? 'This method'} is not allowed here; use ${allowed.join(', ')}.`);
    }
    // Nest's exceptions, and Fastify's errors whether or not Nest mapped them to one.
    const status =
      exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: unknown } | undefined)?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const code = CODE_OF_STATUS[status] ?? 'invalid_field';
      if (code === 'unauthorized') headers['WWW-Authenticate'] = 'Bearer';
      if (code === 'unsupported_media_type') return problem(code, 'The body must be JSON (Content-Type: application/json).');
      const body = problem(code, (exception as Error).message);
      if (code === 'invalid_field') body.field = 'request';
      return body;
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return problem('internal_error', 'An unexpected error occurred.');
  }
}
