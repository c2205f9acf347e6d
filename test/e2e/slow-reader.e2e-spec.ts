import { jest } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { JournalRecordDto } from '../../src/sessions/dto/journal-record.dto.js';
import { SessionEventStream } from '../../src/sessions/session-event-stream.service.js';
import { MAX_PENDING_EVENT_CHARS } from '../../src/sessions/slow-reader.js';
import { admin, bearer, createHttpTestApp, notification, openSessionWithLoop, type HttpTestApp } from './support/http-test-app.js';
import { openSse } from './support/sse-client.js';

// Issue 45: 200 clients that opened streams and stopped reading made the server's memory grow
// (245 → 480 MB in 60 s) and keep it. A reader that stops reading must not make what the server
// holds for it grow without bound, and what a stream held is released once it ends. Played as that
// client: a raw connection that sends its request and never reads a byte of the answer.
describe('REST API v1: a client that stops reading its event stream', () => {
  let t: HttpTestApp;
  // The server's side of every connection, by the client's port.
  const serverSockets = new Map<number, Socket>();
  beforeEach(async () => {
    t = await createHttpTestApp();
    t.app.getHttpServer().on('connection', (socket: Socket) => serverSockets.set(socket.remotePort!, socket));
  });
  afterEach(async () => {
    serverSockets.clear();
    await t.close();
  });

  /** Opens `path` with `token` and never reads; resolves with the client's socket once the server answered with 200. */
  async function stalledReader(path: string, token: string): Promise<Socket> {
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    // Read the status line only, then not a byte more: the kernel's buffers fill, then the server's.
    const head = await new Promise<string>((resolve) =>
      socket.once('readable', () => {
        const chunk = socket.read(12) as Buffer | null;
        resolve(chunk?.toString() ?? '');
      }),
    );
    expect(head).toBe('HTTP/1.1 200');
    socket.pause();
    return socket;
  }

  /** Journals `count` notifications for the loop, some at a time, each with the longest handle. */
  async function journal(sessionId: string, loopId: string, count: number): Promise<void> {
    for (let done = 0; done < count; done += 250) {
      const batch = Array.from({ length: Math.min(250, count - done) }, () =>
        notification(sessionId, loopId, { process_handle: 'h'.repeat(128) }),
      );
      // inbox_full past the loop's capacity: journaled all the same, and each one is a loop event.
      await Promise.all(batch.map((n) => t.service.notifyProcessCompletion(sessionId, n).catch(() => undefined)));
    }
  }

  /**
   * A reader of `path` that keeps up (the admin token's, counted apart): a loop's streams share
   * their reads, so it is given the same events as a stalled reader of it at the same time, and what it received and the
   * stalled one's socket did not take is what the server holds for the stalled one (its status
   * line and headers aside). `given`: the bytes of the events it received (`type`: their `event:`).
   */
  async function keepingUp(path: string, type?: string): Promise<{ given: number; count: number; close(): void }> {
    const stream = await openSse(`${t.url}${path}`, admin);
    const reader = { given: 0, count: 0, close: () => stream.close() };
    void (async () => {
      for (;;) {
        const [event] = await stream.next(1);
        reader.count++;
        reader.given += Buffer.byteLength(`id: ${event!.id}\n${type ? `event: ${type}\n` : ''}data: ${event!.data}\n\n`);
      }
    })();
    return reader;
  }

  it("a loop's stream: what waits for it in the server stays within the bound; past it the reader is dropped and all it held released", async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const streams = t.app.get(SessionEventStream);
    const path = `/v1/sessions/${sessionId}/loops/${loopId}/events`;
    const client = await stalledReader(path, token);
    const server = serverSockets.get(client.localPort!)!;
    expect(streams.openStreams(sessionId)).toBe(1);
    const reader = await keepingUp(path, 'notification');
    // Events of about 410 bytes, 15,000 of them (6.1 MB): past the bound (1M) and what the kernel's
    // socket buffers take (3 to 4 MB on loopback), short of that and Nest's default (4M).
    const total = 15_000;
    let held = 0;
    const look = (): void => {
      if (!server.destroyed) held = Math.max(held, reader.given - server.bytesWritten);
    };
    for (let done = 0; done < total && !server.destroyed; done += 1_000) {
      await journal(sessionId, loopId, 1_000);
      look();
    }
    // The streams follow the journal a read at a time: until the one that keeps up has it all.
    for (const deadline = Date.now() + 60_000; !server.destroyed && reader.count < total && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      look();
    }
    // Never more than the bound (and one read's slack) held for a reader that does not read ...
    expect(held).toBeLessThanOrEqual(MAX_PENDING_EVENT_CHARS + 256 * 1024);
    // ... which is dropped rather than held for, with everything its stream held.
    expect(server.destroyed).toBe(true);
    expect(streams.openStreams(sessionId)).toBe(0);
    client.destroy();
    reader.close();
    // Its place is free: a new stream opens and resumes where the client says.
    const again = await openSse(`${t.url}${path}`, bearer(token));
    expect(again.status).toBe(200);
    again.close();
  });

  it("a session's stream: read at the pace its client takes it, so what waits for it stays within a page; leaving releases it", async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const streams = t.app.get(SessionEventStream);
    // What the server read for the stream is what it gave it: each record as the stream sends it.
    let given = 0;
    const readJournal = t.service.readJournal.bind(t.service);
    jest.spyOn(t.service, 'readJournal').mockImplementation(async (...args) => {
      const records = await readJournal(...args);
      for (const record of records)
        given += Buffer.byteLength(`id: ${record.sequence}\ndata: ${JSON.stringify(JournalRecordDto.from(record))}\n\n`);
      return records;
    });
    const client = await stalledReader(`/v1/sessions/${sessionId}/events`, token);
    const server = serverSockets.get(client.localPort!)!;

    // Records of about 560 bytes, 12,000 of them (6.7 MB): past what the kernel's socket buffers
    // take (3 to 4 MB on loopback) and the bound (1M).
    let held = 0;
    for (let done = 0; done < 12_000; done += 1_000) {
      await journal(sessionId, loopId, 1_000);
      // Reads of the journal wait while appends keep coming: let the stream read what it will.
      for (let before = -1; given !== before;) {
        before = given;
        await new Promise((resolve) => setTimeout(resolve, 100));
        held = Math.max(held, given - server.bytesWritten);
      }
    }
    // The stream waited for its client instead of queueing the journal for it: at most a page held
    // (500 records), never the bound, so it was not dropped either.
    expect(server.bytesWritten).toBeGreaterThan(MAX_PENDING_EVENT_CHARS);
    expect(held).toBeLessThanOrEqual(MAX_PENDING_EVENT_CHARS / 2);
    expect(server.destroyed).toBe(false);
    expect(streams.openStreams(sessionId)).toBe(1);

    // The client leaves: its stream and everything it held are released.
    client.destroy();
    for (const deadline = Date.now() + 10_000; streams.openStreams(sessionId) > 0 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(streams.openStreams(sessionId)).toBe(0);
  });
});
