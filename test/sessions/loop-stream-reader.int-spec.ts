import type { LoopEventView } from 'nestjs-process-notifications';
import { Subscriber } from 'rxjs';
import { LoopStreamReader } from '../../src/sessions/loop-stream-reader.js';
import { createTestApp, notification } from '../support/test-app.js';

// Issues 37 and 46: a node's loop streams, of one session or of many, share one read per commit.
// Each stream must still get exactly its own loop's events from its own position (nothing of
// another loop or session, nothing lost, nothing twice), whether it joined at the start, from an
// old position, or while the others were being read; and a commit must cost one read, not one
// per stream nor one per session.
describe('the loop streams of a node, read together', () => {
  let app: Awaited<ReturnType<typeof createTestApp>>;
  beforeEach(async () => {
    app = await createTestApp({ loopCapacity: 10_000 });
  });
  afterEach(() => app.close());

  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  // A stream of one loop through `reader`: what it was given, and how to end it.
  function streamOf(reader: LoopStreamReader, sessionId: string, loopId: string, after: number) {
    const events: LoopEventView[] = [];
    const subscriber = new Subscriber<LoopEventView>({
      next: (event) => events.push(event),
      error: () => undefined,
      complete: () => undefined,
    });
    const leave = reader.follow(sessionId, loopId, after, subscriber);
    return { sessionId, loopId, after, events, end: () => (subscriber.unsubscribe(), leave()) };
  }

  it('gives each stream its own loop’s events after its position, once each, however it joined', async () => {
    const { service } = app;
    // Three sessions: one with three streamed loops (its loops read together), two with one
    // streamed loop each (each its own loop's range), all read by one reader.
    const sessions = await Promise.all([service.openSession(), service.openSession(), service.openSession()]);
    const openIn = async (index: number) => ({
      sessionId: sessions[index]!.sessionId,
      loopId: (await service.openLoop(sessions[index]!.sessionId)).loopId,
    });
    const loops = [await openIn(0), await openIn(0), await openIn(1), await openIn(0), await openIn(2)];
    // A loop of the first session nobody streams: its records are nobody's events.
    const unstreamed = await openIn(0);
    const sent = new Map<string, Array<{ commandId: string; sequence: number }>>(loops.map(({ loopId }) => [loopId, []]));
    const consumedSequences = new Map<string, number[]>(loops.map(({ loopId }) => [loopId, []]));
    const send = async (count: number): Promise<void> => {
      await Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const { sessionId, loopId } = loops[i % loops.length]!;
          const item = notification(sessionId, loopId);
          const { sequence } = await service.notifyProcessCompletion(sessionId, item);
          sent.get(loopId)!.push({ commandId: String(item.command_id), sequence });
          if (i % 4 === 0)
            await service.notifyProcessCompletion(unstreamed.sessionId, notification(unstreamed.sessionId, unstreamed.loopId));
        }),
      );
    };
    const consumedIds = new Set<string>();
    // Consumes the oldest unconsumed notification of every other loop.
    const consumeSome = async (): Promise<void> => {
      for (const { sessionId, loopId } of loops.filter((_, i) => i % 2 === 0)) {
        const oldest = sent.get(loopId)!.find(({ commandId }) => !consumedIds.has(commandId))!;
        consumedIds.add(oldest.commandId);
        const answer = await service.consume(sessionId, loopId, oldest.commandId);
        consumedSequences.get(loopId)!.push(answer.sequence);
      }
    };

    await send(20);
    const reader = new LoopStreamReader(service, 7);
    const follow = (index: number, after: number) => streamOf(reader, loops[index]!.sessionId, loops[index]!.loopId, after);
    // Two streams from the start, one from where the journal stands now.
    const streams = [follow(0, 0), follow(1, 0)];
    const middle = Math.max(...[...sent.values()].flat().map(({ sequence }) => sequence));
    streams.push(follow(2, middle));
    await send(30);
    await consumeSome();
    // Two more join while the others are being read: one from the start, one from the middle.
    const joining = send(30);
    streams.push(follow(3, 0), follow(4, middle));
    await joining;
    await consumeSome();
    await send(15);
    // Caught up: every stream was given what its loop had after its position (pages of 7, read
    // one after another, take longer than a fixed pause on a busy machine), or 10 s went by.
    const missing = (stream: (typeof streams)[number]): number => {
      const seen = new Set(stream.events.flatMap((event) => (event.kind === 'consumed' ? [] : [event.sequence])));
      const consumedSeen = new Set(stream.events.flatMap((event) => (event.kind === 'consumed' ? [event.commandId] : [])));
      return sent
        .get(stream.loopId)!
        .filter(({ sequence, commandId }) => sequence > stream.after && !seen.has(sequence) && !consumedSeen.has(commandId)).length;
    };
    for (const until = Date.now() + 10_000; Date.now() < until && streams.some((stream) => missing(stream) > 0);) await settle();
    await settle();

    for (const stream of streams) {
      const sequences = stream.events.map((event) => event.sequence);
      expect(sequences).toEqual([...new Set(sequences)].sort((a, b) => a - b));
      expect(sequences.every((sequence) => sequence > stream.after)).toBe(true);
      for (const event of stream.events) {
        if (event.kind !== 'consumed')
          expect([event.notification.sessionId, event.notification.loopId]).toEqual([stream.sessionId, stream.loopId]);
        else expect(consumedSequences.get(stream.loopId)).toContain(event.sequence);
      }
      // Every notification of its loop after its position was given (or, consumed before it was
      // read, its consumed record), and every consume of it.
      const given = new Set(stream.events.filter((event) => event.kind === 'notification').map((event) => event.sequence));
      const consumedGiven = new Set(stream.events.flatMap((event) => (event.kind === 'consumed' ? [event.commandId] : [])));
      const expected = sent.get(stream.loopId)!.filter(({ sequence }) => sequence > stream.after);
      expect(expected.filter(({ sequence, commandId }) => !given.has(sequence) && !consumedGiven.has(commandId))).toEqual([]);
      const consumed = stream.events.filter((event) => event.kind === 'consumed').map((event) => event.sequence);
      expect(consumed).toEqual(consumedSequences.get(stream.loopId)!.filter((sequence) => sequence > stream.after));
    }
    streams.forEach((stream) => stream.end());
  });

  // Sixteen streams, of one session's sixteen loops or of sixteen sessions' one loop each, each
  // round's sixteen notifications sent at once: the reads per commit are counted at the source.
  async function readsPerRound(layout: 'one session' | 'sixteen sessions') {
    const { service } = app;
    const shared = layout === 'one session' ? (await service.openSession()).sessionId : undefined;
    const loops = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const sessionId = shared ?? (await service.openSession()).sessionId;
        return { sessionId, loopId: (await service.openLoop(sessionId)).loopId };
      }),
    );
    let reads = 0;
    const counted = {
      readLoopStreams: (...args: Parameters<typeof service.readLoopStreams>) => (reads++, service.readLoopStreams(...args)),
      journalChangedSessions: () => service.journalChangedSessions(),
    };
    let commits = 0;
    const counting = service.journalCommits$.subscribe(() => commits++);
    const reader = new LoopStreamReader(counted, 500);
    const streams = loops.map(({ sessionId, loopId }) => streamOf(reader, sessionId, loopId, 0));
    await settle();
    reads = 0;
    commits = 0;
    for (let round = 0; round < 10; round++) {
      await Promise.all(loops.map(({ sessionId, loopId }) => service.notifyProcessCompletion(sessionId, notification(sessionId, loopId))));
      await settle();
    }
    counting.unsubscribe();
    streams.forEach((stream) => stream.end());
    expect(streams.map((stream) => stream.events.length)).toEqual(loops.map(() => 10));
    expect(commits).toBeGreaterThan(0);
    return { reads, commits };
  }

  it("reads only the hinted sessions' ranges, and a failed read ends only the streams it served", async () => {
    const { service } = app;
    const loops = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const { sessionId } = await service.openSession();
        return { sessionId, loopId: (await service.openLoop(sessionId)).loopId };
      }),
    );
    const ranges: Array<ReadonlyArray<{ sessionId: string }>> = [];
    let failNext = false;
    const source = {
      readLoopStreams: (...args: Parameters<typeof service.readLoopStreams>) => {
        ranges.push(args[0]);
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('the store failed this read'));
        }
        return service.readLoopStreams(...args);
      },
      journalChangedSessions: () => service.journalChangedSessions(),
    };
    const reader = new LoopStreamReader(source, 500);
    const errors: unknown[] = [];
    const streams = loops.map(({ sessionId, loopId }) => {
      const events: LoopEventView[] = [];
      const subscriber = new Subscriber<LoopEventView>({
        next: (event: LoopEventView) => events.push(event),
        error: (error: unknown) => errors.push(error),
        complete: () => undefined,
      });
      const leave = reader.follow(sessionId, loopId, 0, subscriber);
      return { events, subscriber, end: () => (subscriber.unsubscribe(), leave()) };
    });
    await settle();
    ranges.length = 0;
    // A commit of one session reads that session's range alone.
    const [first, second] = loops;
    await service.notifyProcessCompletion(first!.sessionId, notification(first!.sessionId, first!.loopId));
    await settle();
    expect(ranges.map((read) => read.map((range) => range.sessionId))).toEqual([[first!.sessionId]]);
    expect(streams.map((stream) => stream.events.length)).toEqual([1, 0, 0, 0]);
    // The read of the second session's commit fails: its stream ends, the others go on.
    failNext = true;
    await service.notifyProcessCompletion(second!.sessionId, notification(second!.sessionId, second!.loopId));
    await settle();
    expect(errors).toHaveLength(1);
    expect(streams.map((stream) => stream.subscriber.closed)).toEqual([false, true, false, false]);
    await Promise.all(loops.map(({ sessionId, loopId }) => service.notifyProcessCompletion(sessionId, notification(sessionId, loopId))));
    await settle();
    expect(streams.map((stream) => stream.events.length)).toEqual([2, 0, 1, 1]);
    streams.forEach((stream) => stream.end());
  });

  it('reads once per commit for all its streams, not once per stream nor once per session', async () => {
    for (const layout of ['one session', 'sixteen sessions'] as const) {
      const { reads, commits } = await readsPerRound(layout);
      // One read per commit (a second when a commit lands during a read): 16 streams, or 16
      // sessions' readers, read alone made 16.
      expect({ layout, perCommit: reads / commits <= 2 }).toEqual({ layout, perCommit: true });
      expect(reads).toBeLessThan(16 * 10);
    }
  });
});
