import type { LoopEventView } from 'nestjs-process-notifications';
import { Subscriber } from 'rxjs';
import { SessionLoopReader } from '../../src/sessions/session-loop-reader.js';
import { createTestApp, notification } from '../support/test-app.js';

// Issue 37: a node's loop streams of one session share one read per commit. Each stream must
// still get exactly its own loop's events from its own position (nothing of another loop,
// nothing lost, nothing twice), whether it joined at the start, from an old position, or while
// the others were being read; and a commit must cost one read, not one per stream.
describe('the loop streams of one session, read together', () => {
  let app: Awaited<ReturnType<typeof createTestApp>>;
  beforeEach(async () => {
    app = await createTestApp({ loopCapacity: 10_000 });
  });
  afterEach(() => app.close());

  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  // A stream of one loop through `reader`: what it was given, and how to end it.
  function streamOf(reader: SessionLoopReader, loopId: string, after: number) {
    const events: LoopEventView[] = [];
    const subscriber = new Subscriber<LoopEventView>({
      next: (event) => events.push(event),
      error: () => undefined,
      complete: () => undefined,
    });
    const leave = reader.follow(loopId, after, subscriber);
    return { loopId, after, events, end: () => (subscriber.unsubscribe(), leave()) };
  }

  it('gives each stream its own loop’s events after its position, once each, however it joined', async () => {
    const { service } = app;
    const { sessionId } = await service.openSession();
    const loops = await Promise.all(Array.from({ length: 5 }, () => service.openLoop(sessionId)));
    const sent = new Map<string, Array<{ commandId: string; sequence: number }>>(loops.map(({ loopId }) => [loopId, []]));
    const consumedSequences = new Map<string, number[]>(loops.map(({ loopId }) => [loopId, []]));
    const send = async (count: number): Promise<void> => {
      await Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const { loopId } = loops[i % loops.length]!;
          const item = notification(sessionId, loopId);
          const { sequence } = await service.notifyProcessCompletion(sessionId, item);
          sent.get(loopId)!.push({ commandId: String(item.command_id), sequence });
        }),
      );
    };
    const consumedIds = new Set<string>();
    // Consumes the oldest unconsumed notification of every other loop.
    const consumeSome = async (): Promise<void> => {
      for (const { loopId } of loops.filter((_, i) => i % 2 === 0)) {
        const oldest = sent.get(loopId)!.find(({ commandId }) => !consumedIds.has(commandId))!;
        consumedIds.add(oldest.commandId);
        const answer = await service.consume(sessionId, loopId, oldest.commandId);
        consumedSequences.get(loopId)!.push(answer.sequence);
      }
    };

    await send(20);
    const reader = new SessionLoopReader(sessionId, service, 7, () => undefined);
    // Two streams from the start, one from where the journal stands now.
    const streams = [streamOf(reader, loops[0]!.loopId, 0), streamOf(reader, loops[1]!.loopId, 0)];
    const middle = Math.max(...[...sent.values()].flat().map(({ sequence }) => sequence));
    streams.push(streamOf(reader, loops[2]!.loopId, middle));
    await send(30);
    await consumeSome();
    // Two more join while the others are being read: one from the start, one from the middle.
    const joining = send(30);
    streams.push(streamOf(reader, loops[3]!.loopId, 0), streamOf(reader, loops[4]!.loopId, middle));
    await joining;
    await consumeSome();
    await send(15);
    await settle();

    for (const stream of streams) {
      const sequences = stream.events.map((event) => event.sequence);
      expect(sequences).toEqual([...new Set(sequences)].sort((a, b) => a - b));
      expect(sequences.every((sequence) => sequence > stream.after)).toBe(true);
      for (const event of stream.events) {
        if (event.kind !== 'consumed') expect(event.notification.loopId).toBe(stream.loopId);
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

  it('reads once per commit for all its streams, not once per stream', async () => {
    const { service } = app;
    const { sessionId } = await service.openSession();
    const loops = await Promise.all(Array.from({ length: 16 }, () => service.openLoop(sessionId)));
    let reads = 0;
    const counted = {
      readLoopEvents: (...args: Parameters<typeof service.readLoopEvents>) => (reads++, service.readLoopEvents(...args)),
      readSessionLoopEvents: (...args: Parameters<typeof service.readSessionLoopEvents>) => (
        reads++,
        service.readSessionLoopEvents(...args)
      ),
      journalChanges: (id: string) => service.journalChanges(id),
    };
    let commits = 0;
    const counting = service.journalCommits$.subscribe(() => commits++);
    const reader = new SessionLoopReader(sessionId, counted, 500, () => undefined);
    const streams = loops.map(({ loopId }) => streamOf(reader, loopId, 0));
    await settle();
    reads = 0;
    commits = 0;
    for (let round = 0; round < 10; round++) {
      // Each round's sixteen notifications, one per loop, sent at once: they commit together.
      await Promise.all(loops.map(({ loopId }) => service.notifyProcessCompletion(sessionId, notification(sessionId, loopId))));
      await settle();
    }
    counting.unsubscribe();
    expect(streams.map((stream) => stream.events.length)).toEqual(loops.map(() => 10));
    expect(commits).toBeGreaterThan(0);
    // One read per commit (a second when a commit lands during a read): 16 streams read alone made 16.
    expect(reads).toBeLessThanOrEqual(2 * commits);
    expect(reads).toBeLessThan(loops.length * 10);
    streams.forEach((stream) => stream.end());
  });
});
