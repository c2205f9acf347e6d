/*
 * How every error the API answers becomes a problem document (issue 49): one row per kind of
 * error, first match wins, so a new kind is a new row rather than a new branch of the filter.
 * Status and title come from the code's entry in PROBLEM_TYPES; a row gives the code, the detail,
 * the extension members and the headers of its own.
 */
import { HttpException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  DeliveryStoppedError,
  IdempotencyCollisionError,
  JournalUnavailableError,
  OwnerUnavailableError,
  ProcessNotificationsError,
  ValidationError,
  type StopCause,
} from 'nestjs-process-notifications';
import { IDEMPOTENT_REPLAYED_HEADER, RETRY_AFTER_HEADER } from 'process-notifications-contract';
import { ALLOW_HEADER } from './api-response-headers.js';
import { HttpProblemError } from './http-problem.error.js';
import { PROBLEM_TYPES, type ProblemCode } from './problem-types.js';
import { allowedMethods } from './route-table.js';

type Code = keyof typeof PROBLEM_TYPES;
type Headers = Readonly<Record<string, string>>;

/** What one error is answered with, besides the status and title of its code. */
export interface ProblemAnswer {
  readonly code: Code;
  readonly detail: string;
  /** Members after `code`, in this order. */
  readonly extensions?: Readonly<Record<string, unknown>>;
  /** Headers in the order they are set. */
  readonly headers?: Headers;
}

/** One row of the table: which errors it takes, and its answer to one. */
interface ProblemRow {
  takes(exception: unknown): boolean;
  answer(exception: unknown, request: FastifyRequest): ProblemAnswer;
}

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

/** Headers that go with a code whichever error carries it (a library error, the HTTP layer's, Nest's). */
const HEADERS_OF_CODE: Partial<Record<Code, Headers>> = {
  unauthorized: { 'WWW-Authenticate': 'Bearer' },
  stream_limit_reached: { [RETRY_AFTER_HEADER]: '1' },
  journal_unavailable: { [RETRY_AFTER_HEADER]: RETRY_AFTER_SECONDS.journal_unavailable },
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

/** A row for the errors `takes` recognises, typed for its `answer`. */
function row<E>(
  takes: (exception: unknown) => exception is E,
  answer: (exception: E, request: FastifyRequest) => ProblemAnswer,
): ProblemRow {
  return { takes, answer: answer as ProblemRow['answer'] };
}

/** A library error of class `type` whose code the API knows. */
const library =
  <E extends ProcessNotificationsError>(type: abstract new (...args: never[]) => E) =>
  (exception: unknown): exception is E =>
    exception instanceof type && exception.code in PROBLEM_TYPES;

/** A library error's answer: its code, its message, its disposition if it has one, then `extensions`. */
const libraryAnswer = (error: ProcessNotificationsError, extensions: object = {}, headers?: Headers): ProblemAnswer => ({
  code: error.code,
  detail: error.message,
  extensions: { ...(error.disposition ? { disposition: error.disposition } : {}), ...extensions },
  headers,
});

/** The status of a client error of Nest or Fastify (whether or not Nest mapped it to an HttpException). */
function clientErrorStatus(exception: unknown): number | undefined {
  const status =
    exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

// Details that say more than the framework's message.
const FRAMEWORK_DETAIL: Partial<Record<ProblemCode, string>> = {
  unsupported_media_type: 'The body must be JSON (Content-Type: application/json).',
};

/** The rows, in the order they are tried: subclasses before the class they extend. */
const PROBLEM_TABLE: readonly ProblemRow[] = [
  // Logged once per outage by the journal writer, not once per request. Said only when true
  // (issue 45): a write whose transaction was under way may commit late.
  row(library(JournalUnavailableError), (error) =>
    error.mayHaveCommitted
      ? {
          code: error.code,
          detail:
            'The journal did not confirm the write in time: it may have committed after all, and then counts like any ' +
            'committed write. Retry the same request to learn which (docs/contract.md, Under faults).',
          extensions: { may_have_committed: true },
        }
      : {
          code: error.code,
          detail: 'The journal is unavailable; nothing was written and nothing was dispatched. Retry with the same body.',
        },
  ),
  row(library(DeliveryStoppedError), (error) =>
    libraryAnswer(
      error,
      { cause: error.stopCause, loop_id: error.loopId },
      {
        [RETRY_AFTER_HEADER]: RETRY_AFTER_SECONDS[error.stopCause],
        ...(error.appended ? {} : { [IDEMPOTENT_REPLAYED_HEADER]: 'true' }),
      },
    ),
  ),
  row(library(OwnerUnavailableError), (error) => libraryAnswer(error, {}, { [RETRY_AFTER_HEADER]: String(error.retryAfterSeconds) })),
  row(library(ValidationError), (error) => libraryAnswer(error, { field: error.field })),
  row(library(IdempotencyCollisionError), (error) => libraryAnswer(error, { sequence: error.sequence })),
  row(library(ProcessNotificationsError), (error) => libraryAnswer(error)),
  row(
    (exception): exception is HttpProblemError => exception instanceof HttpProblemError,
    (error) => ({ code: error.code, detail: error.message }),
  ),
  // The router could not percent-decode the path (Fastify's FST_ERR_BAD_URL).
  row(
    (exception): exception is unknown => (exception as { code?: unknown } | undefined)?.code === 'FST_ERR_BAD_URL',
    () => ({ code: 'invalid_field', detail: 'A path parameter is not valid percent-encoding.', extensions: { field: 'path' } }),
  ),
  // Nest's own answer for a request no route matches: a wrong method, or no such path.
  row(
    (exception): exception is HttpException => exception instanceof HttpException && exception.getStatus() === 404,
    (_error, request) => {
      const allowed = allowedMethods(request);
      if (allowed.length === 0) return { code: 'not_found', detail: 'No such route.' };
      return {
        code: 'method_not_allowed',
        detail: `${request.method ?? 'This method'} is not allowed here; use ${allowed.join(', ')}.`,
        headers: { [ALLOW_HEADER]: allowed.join(', ') },
      };
    },
  ),
  // Nest's exceptions, and Fastify's errors whether or not Nest mapped them to one.
  row(
    (exception): exception is Error => clientErrorStatus(exception) !== undefined,
    (error) => {
      const code = CODE_OF_STATUS[clientErrorStatus(error)!] ?? 'invalid_field';
      return {
        code,
        detail: FRAMEWORK_DETAIL[code] ?? error.message,
        ...(code === 'invalid_field' ? { extensions: { field: 'request' } } : {}),
      };
    },
  ),
];

/**
 * The answer to `exception` by the first row that takes it, with the headers of its code before
 * the row's own; `undefined` for an error no row takes (unexpected: a 500 that reveals nothing).
 */
export function problemAnswer(exception: unknown, request: FastifyRequest): ProblemAnswer | undefined {
  const taker = PROBLEM_TABLE.find((candidate) => candidate.takes(exception));
  if (taker === undefined) return undefined;
  const answer = taker.answer(exception, request);
  return { ...answer, headers: { ...HEADERS_OF_CODE[answer.code], ...answer.headers } };
}
