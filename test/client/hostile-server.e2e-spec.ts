import { randomUUID } from 'node:crypto';
import {
  BadAnswerError,
  NetworkError,
  ProcessNotificationsClient,
  fetchTransport,
  type HttpTransport,
  type ProcessNotificationsClientOptions,
} from 'process-notifications-client';
import { nodeHttpTransport } from '../../libs/process-notifications-client/src/node-http-transport.js';
import { HostileServer, TRICKLE_MS, type HostileAnswer } from './support/hostile-server.js';
import { TricklingHeadersServer } from './support/trickling-headers-server.js';

// Issue 45: a hostile or broken server cannot crash its clients, exhaust their memory, or hold a
// call past its timeout. Each case plays the server, and checks what the caller was told (the
// documented error, in the promise it awaits) against what really happened (how much the client
// read, how long the call took), on both transports of the JSON calls.
const MAX_ANSWER = 1024 * 1024;
const MAX_EVENT = 64 * 1024;
// What sockets on the loopback may hold between the server's writes and the client's reads.
const SOCKET_BUFFERS = 16 * 1024 * 1024;
const TIMEOUT_MS = 400;
// Scheduling on a loaded machine, not the bound itself: the old code ran past any margin.
const MARGIN_MS = 1500;

const transports: [string, () => HttpTransport][] = [
  ['node:http', () => nodeHttpTransport()],
  ['fetch', () => fetchTransport((input, init) => fetch(input, init))],
];

describe('a client against a hostile server', () => {
  let hostile: HostileServer;
  const escaped: unknown[] = [];
  const onEscape = (error: unknown): void => void escaped.push(error);
  beforeAll(async () => {
    hostile = await HostileServer.start();
    process.on('uncaughtException', onEscape);
    process.on('unhandledRejection', onEscape);
  });
  afterAll(async () => {
    process.off('uncaughtException', onEscape);
    process.off('unhandledRejection', onEscape);
    await hostile.close();
  });
  // Nothing the client did escaped the promises of its calls.
  afterEach(() => expect(escaped).toEqual([]));

  const client = (answer: HostileAnswer, options: Partial<ProcessNotificationsClientOptions> = {}): ProcessNotificationsClient =>
    new ProcessNotificationsClient({ baseUrl: hostile.urlOf(answer), maxAnswerBytes: MAX_ANSWER, maxEventBytes: MAX_EVENT, ...options });

  describe.each(transports)('the JSON calls, on the %s transport', (_name, transport) => {
    it('reject an endless answer with answer_too_large once past maxAnswerBytes, having read no more than that', async () => {
      const before = hostile.sent.get('endless') ?? 0;
      const error = await client('endless', { transport: transport() })
        .health()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadAnswerError);
      expect(error).toMatchObject({ code: 'answer_too_large' });
      // Give the server time to notice the closed connection: then it stops counting.
      await new Promise((settled) => setTimeout(settled, 100));
      const sent = (hostile.sent.get('endless') ?? 0) - before;
      expect(sent).toBeGreaterThan(MAX_ANSWER);
      expect(sent).toBeLessThan(MAX_ANSWER + SOCKET_BUFFERS);
    });

    it('bound the whole answer by requestTimeoutMs, not the time between its bytes', async () => {
      const started = Date.now();
      const error = await client('trickle', { transport: transport(), requestTimeoutMs: TIMEOUT_MS })
        .health()
        .catch((e: unknown) => e);
      const took = Date.now() - started;
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toMatch(/within 400 ms/);
      // The server did trickle: bytes came more often than the timeout.
      expect(hostile.sent.get('trickle')).toBeGreaterThanOrEqual(Math.floor(TIMEOUT_MS / TRICKLE_MS) - 2);
      expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(took).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    });

    it("bound a retried write by its deadlineMs, each attempt's answer included", async () => {
      const started = Date.now();
      const error = await client('trickle', { transport: transport(), retry: { baseDelayMs: 10 } })
        .stopLoop('s', 'l', { deadlineMs: TIMEOUT_MS })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    });

    it('reject a success answer that is not JSON with answer_not_json, not a SyntaxError', async () => {
      const error = await client('not-json', { transport: transport() })
        .getLoop('s', 'l')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadAnswerError);
      expect(error).toMatchObject({ code: 'answer_not_json' });
    });
  });

  it('bounds the status line and headers by requestTimeoutMs too (node:http transport)', async () => {
    const trickling = await TricklingHeadersServer.start();
    try {
      const started = Date.now();
      const error = await new ProcessNotificationsClient({
        baseUrl: trickling.url,
        transport: nodeHttpTransport(),
        requestTimeoutMs: TIMEOUT_MS,
      })
        .health()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    } finally {
      await trickling.close();
    }
  });

  it('cannot be held past requestTimeoutMs by a custom transport that never answers', async () => {
    const started = Date.now();
    const error = await new ProcessNotificationsClient({
      baseUrl: hostile.url,
      transport: () => new Promise(() => undefined),
      requestTimeoutMs: TIMEOUT_MS,
    })
      .health()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
  });

  describe('the event streams', () => {
    it('read no more than maxAnswerBytes of an endless error answer, and judge it by its status', async () => {
      const error = await (async () => {
        for await (const _ of client('endless-error').events('s', { reconnect: false })) {
          // An error answer: no event.
        }
      })().catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'ProblemError', status: 500, code: 'http_500' });
      await new Promise((settled) => setTimeout(settled, 100));
      expect(hostile.sent.get('endless-error')).toBeLessThan(MAX_ANSWER + SOCKET_BUFFERS);
    });

    it.each<HostileAnswer>(['endless-line', 'endless-event'])(
      'end with event_too_large on an event that never ends (%s), having read no more than maxEventBytes',
      async (answer) => {
        const error = await (async () => {
          for await (const _ of client(answer).events('s')) {
            // Nothing is dispatched: the event never ends.
          }
        })().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BadAnswerError);
        expect(error).toMatchObject({ code: 'event_too_large' });
        await new Promise((settled) => setTimeout(settled, 100));
        expect(hostile.sent.get(answer)).toBeLessThan(MAX_EVENT + SOCKET_BUFFERS);
      },
    );

    it('end with event_not_json on an event that is not JSON, on both streams', async () => {
      const sessionEvents = await (async () => {
        for await (const _ of client('event-not-json').events('s', { reconnect: false })) {
          // The first event is not JSON.
        }
      })().catch((e: unknown) => e);
      expect(sessionEvents).toBeInstanceOf(BadAnswerError);
      expect(sessionEvents).toMatchObject({ code: 'event_not_json' });
      const loopEvents = await client('event-not-json')
        .waitForCompletion('s', 'l', { commandId: randomUUID() }, { timeoutMs: 5000 })
        .catch((e: unknown) => e);
      expect(loopEvents).toBeInstanceOf(BadAnswerError);
      expect(loopEvents).toMatchObject({ code: 'event_not_json' });
    });
  });
});
