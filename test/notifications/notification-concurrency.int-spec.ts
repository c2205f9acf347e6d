import type { NotificationDelivery } from 'nestjs-process-notifications';
import { notification, useSessionWithLoop } from '../support/test-app.js';
import { expectConcurrentCollidingDeliveries, expectConcurrentIdenticalDeliveries } from './support/concurrent-deliveries.js';
import { journalCounts } from './support/journal-probe.js';

// Spec section 7: concurrent callers never see a store error, and each gets its own answer.
describe('concurrent deliveries (in-memory SQLite)', () => {
  const TOTAL = 5_000;
  const CALLERS = 64;
  const t = useSessionWithLoop({ loopCapacity: TOTAL });

  it(`${CALLERS} callers deliver ${TOTAL} distinct notifications to one loop: all accepted, each journaled once`, async () => {
    const { service, dataSource, sessionId, loopId } = t;
    const sent = Array.from({ length: TOTAL }, (_, i) => notification(sessionId, loopId, { process_handle: `proc-${i}` }));
    const failures: unknown[] = [];
    const deliveries: NotificationDelivery[] = [];
    // Each caller delivers its share one after another, all callers at once.
    await Promise.all(
      Array.from({ length: CALLERS }, async (_, caller) => {
        for (let i = caller; i < TOTAL; i += CALLERS) {
          try {
            deliveries.push(await service.notifyProcessCompletion(sent[i].session_id as string, sent[i]));
          } catch (error) {
            failures.push(error);
          }
        }
      }),
    );

    expect(failures).toEqual([]);
    expect(deliveries).toHaveLength(TOTAL);
    expect(deliveries.every((d) => d.disposition === 'accepted' && d.appended)).toBe(true);
    expect(new Set(deliveries.map((d) => d.sequence)).size).toBe(TOTAL);
    expect(await journalCounts(dataSource)).toEqual({ rows: TOTAL, distinctIds: TOTAL });
    const pending = await service.pendingNotifications(sessionId, loopId);
    expect(pending).toHaveLength(TOTAL);
    expect(new Set(pending.map((p) => p.commandId))).toEqual(new Set(sent.map((n) => n.command_id)));
    // The pending set is in acceptance order, which is journal order.
    const sequences = pending.map((p) => p.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
  });

  it('50 concurrent identical deliveries: one record, one accepted, 49 duplicate', async () => {
    const { service, dataSource, sessionId, loopId } = t;
    await expectConcurrentIdenticalDeliveries(service, dataSource, sessionId, loopId, 50);
  });

  it('50 concurrent deliveries of one command_id with different handles: one record, one success, 49 collisions', async () => {
    const { service, dataSource, sessionId, loopId } = t;
    await expectConcurrentCollidingDeliveries(service, dataSource, sessionId, loopId, 50);
  });

  it('identical and colliding bursts mixed into distinct deliveries each get their own answer', async () => {
    const { service, dataSource, sessionId, loopId } = t;
    const identical = notification(sessionId, loopId);
    const contested = notification(sessionId, loopId);
    const distinct = Array.from({ length: 200 }, () => notification(sessionId, loopId));
    const identicalCalls = Array.from({ length: 20 }, () => ({ kind: 'identical', input: { ...identical } }));
    const contestedCalls = Array.from({ length: 20 }, (_, i) => ({ kind: 'contested', input: { ...contested, process_handle: `h-${i}` } }));
    const distinctCalls = distinct.map((input) => ({ kind: 'distinct', input }));
    // Round-robin the three kinds so they share batches.
    const calls = distinctCalls.flatMap((call, i) => [call, identicalCalls[i], contestedCalls[i]].filter((c) => c !== undefined));
    const results = await Promise.allSettled(calls.map((call) => service.notifyProcessCompletion(sessionId, call.input)));
    const outcome = (kind: string) =>
      results
        .filter((_, i) => calls[i]!.kind === kind)
        .map((r) => (r.status === 'fulfilled' ? r.value.disposition : (r.reason as { code: string }).code))
        .sort();

    expect(outcome('distinct')).toEqual(distinct.map(() => 'accepted'));
    expect(outcome('identical')).toEqual(['accepted', ...Array.from({ length: 19 }, () => 'duplicate')]);
    expect(outcome('contested')).toEqual(['accepted', ...Array.from({ length: 19 }, () => 'idempotency_collision')]);
    expect(await journalCounts(dataSource)).toEqual({ rows: 202, distinctIds: 202 });
    expect(await service.pendingNotifications(sessionId, loopId)).toHaveLength(202);
  });
});
