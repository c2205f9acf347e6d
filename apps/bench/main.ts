import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import type { BenchResult, BenchRow } from './bench-row.interface.js';
import { notifyPathRows } from './notify-path.rows.js';
import { rawSqliteFloorRows } from './raw-sqlite-floor.rows.js';
import { resultsTable } from './results-table.js';

// Fixed work per row, so runs compare; BENCH_ITEMS overrides it for a quick look.
const ITEMS = Number(process.env.BENCH_ITEMS ?? 5_000);
const WARMUP = Math.min(1_000, Math.ceil(ITEMS / 10));
// BENCH_ROWS=notify/memory runs only the rows whose id contains that text (e.g. to profile one).
const ONLY = process.env.BENCH_ROWS;

/**
 * The row producers, run in this order. Add new measurements here (lifecycle publish, restore
 * per 100k records, HTTP through autocannon, ...): each producer returns rows, and a row that
 * names a `floor` gets an "x floor" ratio against it.
 */
const producers: Array<() => BenchRow[]> = [
  () => rawSqliteFloorRows({ items: ITEMS, warmup: WARMUP, batch: 64 }),
  () => notifyPathRows({ items: ITEMS, warmup: WARMUP }),
];

async function main(): Promise<void> {
  const started = performance.now();
  const results: Array<{ row: BenchRow; result: BenchResult }> = [];
  for (const row of producers.flatMap((produce) => produce()).filter((r) => !ONLY || r.id.includes(ONLY))) {
    process.stderr.write(`running ${row.id} ...`);
    const result = await row.run();
    process.stderr.write(` ${(result.items / result.seconds).toFixed(0)}/s\n`);
    results.push({ row, result });
  }
  console.log(`\nprocess-notifications benchmark: ${ITEMS} items per row after ${WARMUP} warm-up, node ${process.version}\n`);
  console.log(resultsTable(results));
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
