import { randomUUID } from 'node:crypto';
import type { BenchRow } from './bench-row.interface.js';
import { measure } from './measure.js';
import { withModuleContext } from './module-context.js';

/** How many lifecycle records each row times, and how many go through first to warm up. */
export interface LifecyclePublishOptions {
  readonly items: number;
  readonly warmup: number;
}

// A `completed` record of an exited process (the "valid completed" vector), fresh event_id each.
function completedRecords(sessionId: string, loopId: string, count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    event_id: randomUUID(),
    kind: 'completed',
    session_id: sessionId,
    loop_id: loopId,
    process_handle: `proc-${i}`,
    origin_execution_id: randomUUID(),
    state: 'exited',
    process_created_at: '2026-11-01T10:00:00Z',
    reason: 'exited',
    process_started_at: '2026-11-01T10:00:05.250Z',
    process_finished_at: '2026-11-01T10:01:00Z',
    has_exit_code: true,
    exit_code: 0,
  }));
}

/**
 * Lifecycle publishing (owner check, closed-schema validation, idempotent journal append, the
 * domain event) via `ProcessNotificationsService.publishProcessLifecycle`, on a fresh
 * application context and database per row. Every record must be appended, not de-duplicated.
 */
export function lifecyclePublishRows({ items, warmup }: LifecyclePublishOptions): BenchRow[] {
  const row = (database: 'memory' | 'file', concurrency: number): BenchRow => ({
    id: `lifecycle/${database}/c${concurrency}`,
    label: 'lifecycle publish (full path)',
    database,
    concurrency,
    floor: `floor/${database}`,
    run: () =>
      withModuleContext(database, 64, async (service) => {
        const { sessionId } = await service.openSession();
        const { loopId } = await service.openLoop(sessionId);
        const publish = async (record: Record<string, unknown>) => {
          const { appended } = await service.publishProcessLifecycle(record.session_id as string, record);
          if (!appended) throw new Error(`lifecycle record ${String(record.event_id)} was not appended`);
        };
        const warm = completedRecords(sessionId, loopId, warmup);
        await measure(warmup, concurrency, (i) => publish(warm[i]!));
        const timed = completedRecords(sessionId, loopId, items);
        return measure(items, concurrency, (i) => publish(timed[i]!));
      }),
  });
  return [row('memory', 1), row('memory', 64), row('file', 1), row('file', 64)];
}
