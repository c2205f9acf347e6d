import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { concatMap, from, lastValueFrom, type Observable } from 'rxjs';
import { MAX_EVENTS_PER_WRITE, writesPerTurn } from './writes-per-turn.js';

// A loopback connection: the server side's socket is what the operator corks.
async function socketPair(): Promise<{ server: Server; sending: Socket; receiving: Socket }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const receiving = connect(port, '127.0.0.1');
  const [sending] = (await once(server, 'connection')) as [Socket];
  await once(receiving, 'connect');
  return { server, sending, receiving };
}

// Counts the writes the socket hands to the system (one per write(), or one per corked batch).
function countWrites(socket: Socket): { count: () => number } {
  let writes = 0;
  const target = socket as unknown as { _writeGeneric: (...args: unknown[]) => unknown };
  const original = target._writeGeneric.bind(socket);
  target._writeGeneric = (...args: unknown[]) => {
    writes++;
    return original(...args);
  };
  return { count: () => writes };
}

// As Nest's SseStream writes an event stream: each event once the previous one's write was
// taken (a nextTick after it, unless the stream is backed up), not once it was sent.
function writeEachAfterTheLast(events: Observable<string>, socket: Socket): Promise<unknown> {
  return lastValueFrom(
    events.pipe(
      concatMap(
        (event) =>
          new Promise<void>((resolve) => {
            if (socket.write(event)) process.nextTick(resolve);
            else socket.once('drain', resolve);
          }),
      ),
    ),
    { defaultValue: undefined },
  );
}

describe('writesPerTurn', () => {
  let pair: Awaited<ReturnType<typeof socketPair>>;
  beforeEach(async () => (pair = await socketPair()));
  afterEach(async () => {
    pair.sending.destroy();
    pair.receiving.destroy();
    await new Promise((resolve) => pair.server.close(resolve));
  });

  const received = async (bytes: number): Promise<string> => {
    let text = '';
    for await (const chunk of pair.receiving) {
      text += String(chunk);
      if (text.length >= bytes) return text;
    }
    return text;
  };

  it("sends a turn's events in one write, in their order", async () => {
    const writes = countWrites(pair.sending);
    const events = ['id: 1\n\n', 'id: 2\n\n', 'id: 3\n\n', 'id: 4\n\n'];
    const arriving = received(events.join('').length);
    await writeEachAfterTheLast(from(events).pipe(writesPerTurn(pair.sending)), pair.sending);
    expect(await arriving).toBe(events.join(''));
    expect(writes.count()).toBe(1);
  });

  it('without it, the same events take a write each (what the operator saves)', async () => {
    const writes = countWrites(pair.sending);
    const events = ['id: 1\n\n', 'id: 2\n\n', 'id: 3\n\n'];
    const arriving = received(events.join('').length);
    await writeEachAfterTheLast(from(events), pair.sending);
    expect(await arriving).toBe(events.join(''));
    expect(writes.count()).toBe(3);
  });

  it('events of later turns go in writes of their own', async () => {
    const writes = countWrites(pair.sending);
    const corked = writesPerTurn<string>(pair.sending);
    const arriving = received(4 * 'id: n\n\n'.length);
    for (const turn of [0, 1]) {
      await writeEachAfterTheLast(from(['id: n\n\n', 'id: n\n\n']).pipe(corked), pair.sending);
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes.count()).toBe(turn + 1);
    }
    expect(await arriving).toHaveLength(4 * 'id: n\n\n'.length);
  });

  it('writes a burst longer than MAX_EVENTS_PER_WRITE as it comes, and corks again the next turn', async () => {
    const writes = countWrites(pair.sending);
    const corked = writesPerTurn<string>(pair.sending);
    const burst = Array.from({ length: MAX_EVENTS_PER_WRITE + 1 }, (_, i) => `id: ${i}\n\n`);
    const arriving = received(burst.join('').length + 'id: x\n\nid: y\n\n'.length);
    await writeEachAfterTheLast(from(burst).pipe(corked), pair.sending);
    expect(writes.count()).toBe(burst.length);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pair.sending.writableCorked).toBe(0);
    await writeEachAfterTheLast(from(['id: x\n\n', 'id: y\n\n']).pipe(corked), pair.sending);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes.count()).toBe(burst.length + 1);
    expect(await arriving).toBe(burst.join('') + 'id: x\n\nid: y\n\n');
  });

  it('leaves a destroyed socket alone', async () => {
    pair.sending.destroy();
    await lastValueFrom(from(['a']).pipe(writesPerTurn(pair.sending)), { defaultValue: undefined });
    // Before any immediate could have uncorked it.
    expect(pair.sending.writableCorked).toBe(0);
  });
});
