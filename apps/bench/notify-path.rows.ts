import type { BenchResult, BenchRow } from './bench-row.interface.js';
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
  const row = (database: 'memory' | 'file', concurrency: number, library?: string): BenchRow => ({
    id: `notify/${database}/c${concurrency}${library ? `/lib-${library}` : ''}`,
    label: `notify (full path)${library ? `, library path: ${library}` : ''}`,
    database,
    concurrency,
    floor: `floor/${database}`,
    run: async () => {
      // TEMPORARY (issue 24 A/B): which fast paths take the library's path in this row.
      if (library) process.env.PN_LIBRARY_PATHS = library;
      else delete process.env.PN_LIBRARY_PATHS;
      try {
        return await withModuleContext(database, items + warmup, async (service) => {
          const { sessionId } = await service.openSession();
          const { loopId } = await service.openLoop(sessionId);
          const warm = notifications(sessionId, loopId, warmup);
          await measure(warmup, concurrency, (i) => service.notifyProcessCompletion(warm[i].session_id as string, warm[i]));
          const timed = notifications(sessionId, loopId, items);
          return measure(items, concurrency, (i) => service.notifyProcessCompletion(timed[i].session_id as string, timed[i]));
        });
      } finally {
        delete process.env.PN_LIBRARY_PATHS;
      }
    },
  });
  const ab = process.env.BENCH_FAST_PATH_AB
    ? (['memory', 'file'] as const).flatMap((database) =>
        ['dto', 'validity', 'sqlite', 'dto,validity,sqlite'].map((library) => abRow(database, 64, library, items, warmup)),
      )
    : [];
  return [row('memory', 1), row('memory', 64), row('file', 1), row('file', 64), ...ab];
}

/**
 * TEMPORARY (issue 24): one context, chunks of the fast path and of the library path alternated
 * ABBA, so a slow spell of the machine hits both alike; prints both per-item costs (wall and
 * CPU) and the fast path's gain in notify throughput, and returns the fast path's chunks.
 */
function abRow(database: 'memory' | 'file', concurrency: number, library: string, items: number, warmup: number): BenchRow {
  const CHUNK = 2_000;
  const CHUNKS = 16;
  return {
    id: `notify/${database}/c${concurrency}/ab-${library}`,
    label: `notify (full path), A/B fast vs library path: ${library}`,
    database,
    concurrency,
    run: () =>
      withModuleContext(database, CHUNK * CHUNKS + warmup, async (service) => {
        const { sessionId } = await service.openSession();
        const { loopId } = await service.openLoop(sessionId);
        // Both paths warm up (JIT), in halves.
        for (const variant of ['fast', 'library']) {
          if (variant === 'library') process.env.PN_LIBRARY_PATHS = library;
          const warm = notifications(sessionId, loopId, warmup / 2);
          await measure(warmup / 2, concurrency, (i) => service.notifyProcessCompletion(sessionId, warm[i]!));
          delete process.env.PN_LIBRARY_PATHS;
        }
        const totals = { fast: { seconds: 0, cpu: 0, items: 0 }, library: { seconds: 0, cpu: 0, items: 0 } };
        let fastResult: BenchResult | undefined;
        for (let chunk = 0; chunk < CHUNKS; chunk += 1) {
          const variant = chunk % 4 === 0 || chunk % 4 === 3 ? 'fast' : 'library';
          if (variant === 'library') process.env.PN_LIBRARY_PATHS = library;
          else delete process.env.PN_LIBRARY_PATHS;
          const batch = notifications(sessionId, loopId, CHUNK);
          const result = await measure(CHUNK, concurrency, (i) => service.notifyProcessCompletion(sessionId, batch[i]!));
          totals[variant].seconds += result.seconds;
          totals[variant].cpu += result.cpuSeconds ?? 0;
          totals[variant].items += CHUNK;
          if (variant === 'fast') fastResult = result;
        }
        delete process.env.PN_LIBRARY_PATHS;
        const us = (t: { seconds: number; items: number }) => (1e6 * t.seconds) / t.items;
        const cpu = (t: { cpu: number; items: number }) => (1e6 * t.cpu) / t.items;
        process.stderr.write(
          ` [ab ${database} ${library}: fast ${us(totals.fast).toFixed(1)} µs/item wall, ${cpu(totals.fast).toFixed(1)} CPU;` +
            ` library ${us(totals.library).toFixed(1)} wall, ${cpu(totals.library).toFixed(1)} CPU;` +
            ` fast path gain ${(100 * (us(totals.library) / us(totals.fast) - 1)).toFixed(1)} % throughput]`,
        );
        void items;
        return { ...fastResult!, items: totals.fast.items, seconds: totals.fast.seconds, cpuSeconds: totals.fast.cpu };
      }),
  };
}
