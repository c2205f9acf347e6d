import { performance } from 'node:perf_hooks';
import type { BenchResult } from './bench-row.interface.js';

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * Runs `op(0..items-1)` with `concurrency` callers, each taking the next index as soon as its
 * previous call settled. Any rejection aborts the run: a benchmark of failures means nothing.
 */
export async function measure(items: number, concurrency: number, op: (index: number) => unknown): Promise<BenchResult> {
  const latencies = new Float64Array(items);
  let next = 0;
  const caller = async (): Promise<void> => {
    while (next < items) {
      const index = next++;
      const start = performance.now();
      await op(index);
      latencies[index] = performance.now() - start;
    }
  };
  const start = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, caller));
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  latencies.sort();
  return { items, seconds, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), cpuSeconds: (user + system) / 1e6 };
}
