import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  MethodNotAllowedException,
  PayloadTooLargeException,
  Logger,
  type ArgumentsHost,
  type LoggerService,
} from '@nestjs/common';
import fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OwnerUnavailableError } from 'nestjs-process-notifications';
import { HttpProblemError } from './http-problem.error.js';
import { ProblemDetailsFilter } from './problem-details.filter.js';

/** What a client of one request reads: status, headers, and the whole body once it ended. */
interface Received {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

const hostFor = (request: FastifyRequest, response: FastifyReply): ArgumentsHost =>
  ({ switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }) }) as unknown as ArgumentsHost;

describe('ProblemDetailsFilter on a real HTTP response', () => {
  let server: FastifyInstance;
  let logged: unknown[][];
  // What the request handler does with the response before the filter gets the error.
  let before: (response: ServerResponse) => void;
  let error: unknown;
  let filterThrew: unknown;

  beforeEach(async () => {
    logged = [];
    const capture: LoggerService = {
      log: () => undefined,
      warn: () => undefined,
      error: (...args: unknown[]) => void logged.push(args),
    };
    Logger.overrideLogger(capture);
    before = () => undefined;
    filterThrew = undefined;
    // The server's HTTP platform, with one route whose handler fails.
    server = fastify();
    server.get('/v1/anything', (request, reply) => {
      before(reply.raw);
      try {
        new ProblemDetailsFilter().catch(error, hostFor(request, reply));
      } catch (thrown) {
        filterThrew = thrown;
        reply.raw.destroy();
      }
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
  });

  afterEach(async () => {
    Logger.overrideLogger(false);
    await server.close();
  });

  const request = (): Promise<Received> =>
    new Promise((resolve, reject) => {
      const { port } = server.server.address() as AddressInfo;
      get(`http://127.0.0.1:${port}/v1/anything`, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
        response.on('error', reject);
      }).on('error', reject);
    });

  it('answers an unexpected error with a generic 500 and logs its stack once, under the HTTP context', async () => {
    const unexpected = new Error('the secret cause');
    error = unexpected;
    const received = await request();
    expect(received.status).toBe(500);
    expect(received.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(received.body)).toEqual({
      type: 'urn:process-notifications:problem:internal_error',
      title: expect.any(String),
      status: 500,
      detail: 'An unexpected error occurred.',
      code: 'internal_error',
    });
    expect(received.body).not.toContain('secret');
    // The stack, not only the message: it says where the error came from.
    expect(logged).toEqual([[unexpected.stack, undefined, 'HTTP']]);
  });

  it('tells a client when to retry a session whose owner is unavailable (Retry-After, in whole seconds)', async () => {
    const sessionId = '0192f0c4-5e6b-7d4a-8f1e-2a3b4c5d6e7f';
    error = new OwnerUnavailableError(sessionId, 7, 'the owner did not answer');
    const received = await request();
    expect(received.status).toBe(503);
    expect(received.headers['retry-after']).toBe('7');
    expect(JSON.parse(received.body)).toMatchObject({ code: 'owner_unavailable' });
  });

  it('challenges for a bearer token only on 401 unauthorized, not on the other refusals of the HTTP layer', async () => {
    error = new HttpProblemError('unauthorized', 'A bearer token is required.');
    const unauthorized = await request();
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['www-authenticate']).toBe('Bearer');
    error = new HttpProblemError('stream_limit_reached', 'Too many event streams for this session.');
    const tooMany = await request();
    expect(tooMany.status).toBe(429);
    expect(tooMany.headers['retry-after']).toBe('1');
    expect(tooMany.headers).not.toHaveProperty('www-authenticate');
  });

  it('answers a 400 of the framework as a bad request, not as a bad path parameter (only a failed percent-decoding is one)', async () => {
    error = new BadRequestException('Unexpected token in JSON');
    const received = await request();
    expect(received.status).toBe(400);
    expect(JSON.parse(received.body)).toMatchObject({ code: 'invalid_field', field: 'request' });
    expect(logged).toEqual([]);
  });

  it.each([
    [new HttpException('Unsupported Media Type', 415), 415, 'unsupported_media_type'],
    [new PayloadTooLargeException(), 413, 'payload_too_large'],
    [new MethodNotAllowedException(), 405, 'method_not_allowed'],
    [new ForbiddenException(), 403, 'forbidden'],
    [new HttpException('I am a teapot', 418), 400, 'invalid_field'],
    [Object.assign(new Error('Unsupported Media Type: application/json, text/plain'), { statusCode: 415 }), 415, 'unsupported_media_type'],
  ])('answers every client error of the framework with a 4xx and its code, never a 500: %s', async (exception, status, code) => {
    error = exception;
    const received = await request();
    expect(received.status).toBe(status);
    expect(received.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(received.body)).toMatchObject({ status, code });
    expect(logged).toEqual([]);
  });

  it('still answers a server-side HttpException (5xx) as a logged 500', async () => {
    error = new HttpException('Bad Gateway', 502);
    const received = await request();
    expect(received.status).toBe(500);
    expect(logged).toHaveLength(1);
  });

  it('ends a response whose head was already sent (an event stream) without writing a problem into it', async () => {
    before = (response) => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write('id: 1\ndata: {}\n\n');
    };
    error = new Error('the stream broke');
    const received = await request();
    expect(filterThrew).toBeUndefined();
    expect({ status: received.status, type: received.headers['content-type'], body: received.body }).toEqual({
      status: 200,
      type: 'text/event-stream',
      body: 'id: 1\ndata: {}\n\n',
    });
  });
});
