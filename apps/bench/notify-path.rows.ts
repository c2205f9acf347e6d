import type { BenchRow } from './bench-row.interface.js';
import { measure } from './measure.js';
import { withModuleContext } from './module-context.js';
import { benchNotification } from '../../test/support/notification-fixture.js';

/** How many notifications each row times, and how many go through first to warm up. */
export interface NotifyPathOptions {
  readonly items: number;
  readonly warmup: number;
}

function notifications(sessionId: string, loopId: string, count: number): Record<string, string>[] {
  return Array.from({ length: count }, (_, i) => benchNotification(sessionId, loopId, i));
}

/**
 * The full notify path (validation, owner and loop checks, journal append, dispatch through the
 * saga, the loop's answer) via `ProcessNotificationsService.deliverProcessCompletion`, on a
 * fresh application context and database per row.
 */
export function notifyPathRows({ items, warmup }: NotifyPathOptions): BenchRow[] {
  const row = (database: 'memory' | 'file', concurrency: number): BenchRow => ({
    id: `notify/${database}/c${concurrency}`,
    label: 'notify (full path)',
    database,
    concurrency,
    floor: `floor/${database}`,
    run: () =>
      withModuleContext(database, items + warmup, async (service) => {
        const { sessionId } = await service.openSession();
        const { loopId } = await service.openLoop(sessionId);
        const warm = notifications(sessionId, loopId, warmup);
        await measure(warmup, concurrency, (i) => service.notifyProcessCompletion(warm[i].session_id as string, warm[i]));
        const timed = notifications(sessionId, loopId, items);
        return measure(items, concurrency, (i) => service.notifyProcessCompletion(timed[i].session_id as string, timed[i]));
      }),
  });
  return [row('memory', 1), row('memory', 64), row('file', 1), row('file', 64)];
}
