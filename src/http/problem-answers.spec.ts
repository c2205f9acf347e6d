import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  Logger,
  MethodNotAllowedException,
  NotFoundException,
  PayloadTooLargeException,
  UnauthorizedException,
  type LoggerService,
} from '@nestjs/common';
import fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { readFileSync, writeFileSync } from 'node:fs';
import {
  AlreadyExistsError,
  CommandNotJournaledError,
  DeliveryStoppedError,
  IdempotencyCollisionError,
  JournalUnavailableError,
  LoopLimitError,
  LoopNotFoundError,
  NotificationNotFoundError,
  OwnerMismatchError,
  OwnerUnavailableError,
  SessionClosedError,
  SessionNotFoundError,
  UnsupportedEngineError,
  ValidationError,
} from 'nestjs-process-notifications';
import { STOP_CAUSES } from 'process-notifications-contract';
import { HttpProblemError, type HttpProblemCode } from './http-problem.error.js';
import { ProblemDetailsFilter } from './problem-details.filter.js';
import { installRouteTable } from './route-table.js';

/** What the filter wrote: the status, each header in the order set, the body's bytes, and what it logged. */
interface Answer {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
  readonly logged: boolean;
}

const SESSION = '0192f0c4-5e6b-7d4a-8f1e-2a3b4c5d6e7f';
const LOOP = '6e1d9a4b-3c2f-4b8a-a1d7-5f0e2c9b8d33';
const COMMAND = '0b6f7c1e-8a5d-4f4e-9d52-2f7b0d9c1a11';
const HTTP_CODES: readonly HttpProblemCode[] = [
  'invalid_json',
  'invalid_request_target',
  'unauthorized',
  'forbidden',
  'not_found',
  'payload_too_large',
  'unsupported_media_type',
  'stream_limit_reached',
  'journal_unavailable',
];

/** Every kind of error the filter answers, by a name for the fixture; `path` and `method` of the request. */
const CASES: readonly (readonly [name: string, error: () => unknown, request?: { method: string; url: string }])[] = [
  ['AlreadyExistsError', () => new AlreadyExistsError('loop', LOOP)],
  ['CommandNotJournaledError', () => new CommandNotJournaledError(COMMAND)],
  ...STOP_CAUSES.flatMap((cause) => [
    [`DeliveryStoppedError ${cause}`, () => new DeliveryStoppedError(LOOP, cause)] as const,
    [`DeliveryStoppedError ${cause} replayed`, () => new DeliveryStoppedError(LOOP, cause, false)] as const,
  ]),
  ['IdempotencyCollisionError', () => new IdempotencyCollisionError(COMMAND, 42, ['exit_code'])],
  ['JournalUnavailableError', () => new JournalUnavailableError(new Error('disk I/O error'))],
  ['JournalUnavailableError may have committed', () => new JournalUnavailableError('timeout', { mayHaveCommitted: true })],
  ['LoopLimitError', () => new LoopLimitError(SESSION, 64)],
  ['LoopNotFoundError', () => new LoopNotFoundError(SESSION, LOOP)],
  ['NotificationNotFoundError', () => new NotificationNotFoundError(LOOP, COMMAND)],
  ['OwnerMismatchError', () => new OwnerMismatchError(SESSION, 'other')],
  ['OwnerUnavailableError', () => new OwnerUnavailableError(SESSION, 7, 'the owner did not answer')],
  ['SessionClosedError', () => new SessionClosedError(SESSION, '2026-01-01T00:00:00.000Z')],
  ['SessionClosedError no date', () => new SessionClosedError(SESSION, null)],
  ['SessionNotFoundError', () => new SessionNotFoundError(SESSION)],
  ['UnsupportedEngineError', () => new UnsupportedEngineError(LOOP, 'foreign')],
  ['ValidationError', () => new ValidationError('exit_code')],
  ['ValidationError with detail', () => new ValidationError('payload', 'payload must be an object')],
  ...HTTP_CODES.map((code) => [`HttpProblemError ${code}`, () => new HttpProblemError(code, `refused: ${code}`)] as const),
  [
    'FST_ERR_BAD_URL',
    () => Object.assign(new Error("'/v1/%E0' is not a valid url component"), { code: 'FST_ERR_BAD_URL', statusCode: 400 }),
  ],
  [
    'NotFoundException, path with routes',
    () => new NotFoundException('Cannot DELETE /v1/things/1'),
    { method: 'DELETE', url: '/v1/things/1' },
  ],
  ['NotFoundException, no such path', () => new NotFoundException('Cannot GET /v1/nowhere'), { method: 'GET', url: '/v1/nowhere' }],
  ['BadRequestException', () => new BadRequestException('Unexpected token in JSON')],
  ['UnauthorizedException', () => new UnauthorizedException()],
  ['ForbiddenException', () => new ForbiddenException()],
  ['MethodNotAllowedException', () => new MethodNotAllowedException()],
  ['PayloadTooLargeException', () => new PayloadTooLargeException()],
  ['HttpException 415', () => new HttpException('Unsupported Media Type', 415)],
  ['HttpException 418', () => new HttpException('I am a teapot', 418)],
  ['HttpException 502', () => new HttpException('Bad Gateway', 502)],
  ['Fastify error 415', () => Object.assign(new Error('Unsupported Media Type: text/plain'), { statusCode: 415 })],
  ['Fastify error 413', () => Object.assign(new Error('Request body is too large'), { statusCode: 413 })],
  ['Fastify error 404', () => Object.assign(new Error('Not Found'), { statusCode: 404 })],
  ['Fastify error 401', () => Object.assign(new Error('no'), { statusCode: 401 })],
  ['object with a 400 and no message', () => ({ statusCode: 400 })],
  ['object with a 500', () => ({ statusCode: 500 })],
  ['Error', () => new Error('the secret cause')],
  ['string', () => 'thrown as a string'],
  ['undefined', () => undefined],
];

const FIXTURE = new URL('./problem-answers.fixture.json', import.meta.url);

/**
 * Every answer of the problem filter, byte for byte (status, headers in order, body), for every
 * kind of error it maps, against a fixture written from the filter before it was made
 * table-driven (issue 49): the table must answer exactly what the chain of `instanceof` did.
 * `PN_WRITE_PROBLEM_FIXTURE=1` writes the fixture anew from the current filter.
 */
describe('ProblemDetailsFilter answers', () => {
  let server: FastifyInstance;
  let logged: number;

  beforeAll(async () => {
    server = fastify();
    installRouteTable(server);
    server.get('/v1/things/:id', () => 'ok');
    server.put('/v1/things/:id', () => 'ok');
    await server.ready();
    const capture: LoggerService = { log: () => undefined, warn: () => undefined, error: () => void (logged += 1) };
    Logger.overrideLogger(capture);
  });

  afterAll(async () => {
    Logger.overrideLogger(false);
    await server.close();
  });

  const answer = (error: unknown, request = { method: 'GET', url: '/v1/anything' }): Answer => {
    logged = 0;
    const headers: [string, string][] = [];
    let status = 0;
    let body = '';
    const reply = {
      raw: { headersSent: false },
      code: (code: number) => ((status = code), reply),
      headers: (values: Record<string, string>) => (headers.push(...Object.entries(values)), reply),
      header: (name: string, value: string) => (headers.push([name, value]), reply),
      send: (bytes: Buffer) => ((body = bytes.toString('utf8')), reply),
    };
    new ProblemDetailsFilter().answer(error, { ...request, server } as unknown as FastifyRequest, reply as unknown as FastifyReply);
    return { status, headers, body, logged: logged > 0 };
  };

  const answers = (): Record<string, Answer> => Object.fromEntries(CASES.map(([name, error, request]) => [name, answer(error(), request)]));

  it('answers every kind of error exactly as before', () => {
    if (process.env.PN_WRITE_PROBLEM_FIXTURE === '1') writeFileSync(FIXTURE, `${JSON.stringify(answers(), null, 2)}\n`);
    expect(answers()).toEqual(JSON.parse(readFileSync(FIXTURE, 'utf8')));
  });
});
