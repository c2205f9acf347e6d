import { IdempotencyCollisionError, type ProcessNotificationsService } from 'nestjs-process-notifications';
import type { DataSource } from 'typeorm';
import { notification } from '../../support/test-app.js';
import { journalCounts } from './journal-probe.js';

/**
 * `callers` concurrent deliveries of one command_id with identical payloads: exactly one
 * journal record, one `accepted`, the rest `duplicate`, all with the same sequence.
 */
export async function expectConcurrentIdenticalDeliveries(
  service: ProcessNotificationsService,
  dataSource: DataSource,
  sessionId: string,
  loopId: string,
  callers = 50,
): Promise<void> {
  const n = notification(sessionId, loopId);
  const before = await journalCounts(dataSource);
  const results = await Promise.allSettled(
    Array.from({ length: callers }, () => service.notifyProcessCompletion(n.session_id as string, { ...n })),
  );

  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  const deliveries = results.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof service.notifyProcessCompletion>>>).value);
  expect(deliveries.filter((d) => d.disposition === 'accepted')).toHaveLength(1);
  expect(deliveries.filter((d) => d.disposition === 'duplicate')).toHaveLength(callers - 1);
  expect(deliveries.filter((d) => d.appended)).toHaveLength(1);
  expect(new Set(deliveries.map((d) => d.sequence)).size).toBe(1);
  expect(await journalCounts(dataSource)).toEqual({ rows: before.rows + 1, distinctIds: before.distinctIds + 1 });
  expect((await service.pendingNotifications(sessionId, loopId)).filter((p) => p.commandId === n.command_id)).toHaveLength(1);
}

/**
 * `callers` concurrent deliveries of one command_id, each with its own handle: exactly one
 * record and one success; every other caller gets a collision naming the winner's sequence.
 */
export async function expectConcurrentCollidingDeliveries(
  service: ProcessNotificationsService,
  dataSource: DataSource,
  sessionId: string,
  loopId: string,
  callers = 50,
): Promise<void> {
  const n = notification(sessionId, loopId);
  const before = await journalCounts(dataSource);
  const results = await Promise.allSettled(
    Array.from({ length: callers }, (_, i) =>
      service.notifyProcessCompletion(n.session_id as string, { ...n, process_handle: `proc-${i}` }),
    ),
  );

  const fulfilled = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ index: i, delivery: r.value }] : []));
  expect(fulfilled).toHaveLength(1);
  const [{ index, delivery }] = fulfilled as [(typeof fulfilled)[number]];
  expect(delivery).toMatchObject({ disposition: 'accepted', appended: true, commandId: n.command_id });

  const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  expect(errors).toHaveLength(callers - 1);
  for (const error of errors) {
    expect(error).toBeInstanceOf(IdempotencyCollisionError);
    expect(error).toMatchObject({ disposition: 'collision', idempotencyId: n.command_id, sequence: delivery.sequence });
  }
  expect(await journalCounts(dataSource)).toEqual({ rows: before.rows + 1, distinctIds: before.distinctIds + 1 });
  const held = (await service.pendingNotifications(sessionId, loopId)).filter((p) => p.commandId === n.command_id);
  expect(held).toEqual([expect.objectContaining({ processHandle: `proc-${index}`, sequence: delivery.sequence })]);
}
