import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import type { BenchResult, BenchRow } from './bench-row.interface.js';
import { adminPagesRows, type AdminPagesResult, type AdminPagesRow } from './admin-pages.rows.js';
import { adminPagesTable } from './admin-pages-table.js';
import type { HttpResult, HttpRow } from './http-row.interface.js';
import { httpRows } from './http.rows.js';
import { httpTable } from './http-table.js';
import { clusterRows } from './cluster.rows.js';
import { loopQueueRows, loopQueueTable, type LoopQueueResult, type LoopQueueRow } from './loop-queue.rows.js';
import { lifecyclePublishRows } from './lifecycle-publish.rows.js';
import { notifyPathRows } from './notify-path.rows.js';
import { rawSqliteFloorRows } from './raw-sqlite-floor.rows.js';
import type { RestoreResult, RestoreRow } from './restore-row.interface.js';
import { restoreRows } from './restore.rows.js';
import { restoreTable } from './restore-table.js';
import { resultsTable } from './results-table.js';
import { tracingRows } from './tracing.rows.js';
import { journalReadsRows, type JournalReadsResult, type JournalReadsRow } from './journal-reads.rows.js';
import { journalReadsTable } from './journal-reads-table.js';

// Fixed work per row, so runs compare; BENCH_ITEMS overrides it for a quick look. The warm-up is
// as long as the start-up transient of the full notify path: its first 5,000 items in memory run
// at about half the rate of every later 5,000 (JIT tiers, a young heap still growing).
const ITEMS = Number(process.env.BENCH_ITEMS ?? 20_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5_000);
// In-process rows run this many rounds, every row once per round (so a slow spell of the machine
// hits all rows alike); each row reports its median round by items/s.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Journal size of the restore rows and how many starts they time (median reported).
const RESTORE_RECORDS = Number(process.env.BENCH_RESTORE_RECORDS ?? 100_000);
const RESTORE_RUNS = Number(process.env.BENCH_RESTORE_RUNS ?? 3);
// The admin pages row: journal size, loops, loops per session, and timed calls per page.
const ADMIN_RECORDS = Number(process.env.BENCH_ADMIN_RECORDS ?? 1_000_000);
const ADMIN_LOOPS = Number(process.env.BENCH_ADMIN_LOOPS ?? 10_000);
const ADMIN_RUNS = Number(process.env.BENCH_ADMIN_RUNS ?? 21);
// The journal-read rows: the paged session's size, the other sessions' records around it, timed
// calls per page, and the noisy-neighbour row's readers and seconds per phase.
const JOURNAL_SESSION_RECORDS = Number(process.env.BENCH_JOURNAL_SESSION_RECORDS ?? 10_000);
const JOURNAL_NEIGHBOUR_RECORDS = Number(process.env.BENCH_JOURNAL_NEIGHBOUR_RECORDS ?? 1_000_000);
const JOURNAL_READERS = Number(process.env.BENCH_JOURNAL_READERS ?? 16);
// Timed seconds per HTTP row, after a warm-up of fixed size.
const HTTP_SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 10);
const HTTP_CONNECTIONS = 64;
// HTTP rows run this many rounds, every row once per round (interleaved, as the in-process rows);
// each row reports its median round by requests/s.
const HTTP_ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 1);
// BENCH_ROWS=notify/memory runs only the rows whose id contains that text (e.g. to profile one),
// and the floor or ceiling rows they are compared to.
const ONLY = process.env.BENCH_ROWS;
// Rounds of the loop-queue rows (each a pair of fresh servers), interleaved.
const LOOP_QUEUE_ROUNDS = Number(process.env.BENCH_LOOP_ROUNDS ?? 1);

/**
 * The in-process row producers, run in this order: each returns rows, and a row that names a
 * `floor` gets an "x floor" ratio against it. Restore and HTTP rows measure other things (start
 * time, requests) and get tables of their own below.
 */
const producers: Array<() => BenchRow[]> = [
  () => rawSqliteFloorRows({ items: ITEMS, warmup: WARMUP, batch: 64 }),
  () => notifyPathRows({ items: ITEMS, warmup: WARMUP }),
  () => lifecyclePublishRows({ items: ITEMS, warmup: WARMUP }),
  () => tracingRows({ items: ITEMS, warmup: WARMUP }),
];

type Runnable<T> = { id: string; floor?: string; ceiling?: string; run(): Promise<T> };

async function runRows<R extends Runnable<T>, T>(
  rows: R[],
  rate: (result: T) => string,
  rounds?: { count: number; score: (result: T) => number },
): Promise<Array<{ row: R; result: T; rounds: T[] }>> {
  const chosen = rows.filter((r) => !ONLY || r.id.includes(ONLY));
  const comparedTo = new Set(chosen.flatMap((r) => [r.floor, r.ceiling]));
  const running = rows.filter((r) => chosen.includes(r) || comparedTo.has(r.id));
  const runs = new Map<R, T[]>(running.map((row) => [row, []]));
  const count = rounds?.count ?? 1;
  for (let round = 1; round <= count; round += 1) {
    for (const row of running) {
      process.stderr.write(`running ${row.id}${count > 1 ? ` (round ${round} of ${count})` : ''} ...`);
      const result = await row.run();
      process.stderr.write(` ${rate(result)}\n`);
      runs.get(row)!.push(result);
    }
  }
  // The median round (with one round, the round), and every round in the order they ran.
  return running.map((row) => {
    const inOrder = runs.get(row)!;
    const results = rounds ? [...inOrder].sort((a, b) => rounds.score(a) - rounds.score(b)) : inOrder;
    return { row, result: results[Math.floor((results.length - 1) / 2)]!, rounds: inOrder };
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  const results = await runRows(
    producers.flatMap((produce) => produce()),
    (r: BenchResult) =>
      `${(r.items / r.seconds).toFixed(0)}/s${r.cpuSeconds === undefined ? '' : `, ${((1e6 * r.cpuSeconds) / r.items).toFixed(1)} CPU µs/item`}`,
    { count: ROUNDS, score: (r) => r.items / r.seconds },
  );
  const restores = await runRows<RestoreRow, RestoreResult>(
    restoreRows({ records: RESTORE_RECORDS, runs: RESTORE_RUNS }),
    (r) => `${r.startSeconds.map((s) => s.toFixed(2)).join(', ')} s`,
  );
  const admin = await runRows<AdminPagesRow, AdminPagesResult>(
    adminPagesRows({ records: ADMIN_RECORDS, loops: ADMIN_LOOPS, loopsPerSession: 10, runs: ADMIN_RUNS }),
    (r) => `slowest median ${Math.max(...r.pages.map((page) => page.medianMs)).toFixed(1)} ms per page`,
  );
  const journalReads = await runRows<JournalReadsRow, JournalReadsResult>(
    journalReadsRows({
      sessionRecords: JOURNAL_SESSION_RECORDS,
      neighbourRecords: JOURNAL_NEIGHBOUR_RECORDS,
      runs: ADMIN_RUNS,
      readers: JOURNAL_READERS,
      seconds: Math.min(HTTP_SECONDS, 5),
    }),
    (r) => r.cells.map((cell) => `${cell.label} ${cell.ms.toFixed(2)}`).join(', '),
  );
  const http = await runRows<HttpRow, HttpResult>(
    httpRows({ connections: HTTP_CONNECTIONS, seconds: HTTP_SECONDS, warmupRequests: 2_000 }),
    (r) => `${(r.requests / r.seconds).toFixed(0)} requests/s`,
    { count: HTTP_ROUNDS, score: (r) => r.requests / r.seconds },
  );
  const cluster = await runRows<HttpRow, HttpResult>(
    clusterRows({ connections: HTTP_CONNECTIONS, seconds: HTTP_SECONDS, warmupRequests: 2_000 }),
    (r) => `${(r.requests / r.seconds).toFixed(0)} requests/s`,
  );
  // Issue 37's loop scenario: opt-in (BENCH_ROWS=loop-queue), it starts two servers of its own.
  const loopQueue = ONLY
    ? await runRows<LoopQueueRow, LoopQueueResult>(
        loopQueueRows(),
        (r) =>
          `${r.sendsPerSecond.toFixed(0)} sends/s, send → loop p50 ${r.givenP50Ms.toFixed(0)} ms, drain ${r.drainPerSecond.toFixed(0)}/s` +
          (r.serverCpuUs === undefined ? '' : `, server CPU ${r.serverCpuUs.toFixed(0)} µs per completion`),
        { count: LOOP_QUEUE_ROUNDS, score: (r) => r.drainPerSecond },
      )
    : [];
  if (results.length) {
    console.log(
      `\nprocess-notifications benchmark: ${ITEMS} items per row after ${WARMUP} warm-up, median of ${ROUNDS} rounds, node ${process.version}\n`,
    );
    console.log(resultsTable(results));
  }
  if (restores.length) {
    console.log(`\nRestore: module start (application context init) on a file journal, median of ${RESTORE_RUNS} starts\n`);
    console.log(restoreTable(restores));
  }
  if (admin.length) {
    const [first] = admin;
    console.log(
      `\nAdmin read API over HTTP on a SQLite file: ${ADMIN_RECORDS} journal records in ${ADMIN_LOOPS} loops (10 per session), ` +
        `${ADMIN_RUNS} calls per page after one untimed; the start that migrated it (filling the counts from the journal) took ` +
        `${first!.result.migrationSeconds.toFixed(1)} s\n`,
    );
    console.log(adminPagesTable(admin));
  }
  if (journalReads.length) {
    console.log(`\nJournal reads on a SQLite file, the real server in a worker thread, over HTTP (issue 23)\n`);
    console.log(journalReadsTable(journalReads));
  }
  if (http.length) {
    console.log(
      `\nHTTP: createServerApp on 127.0.0.1 in a worker thread, autocannon in the main thread, ${HTTP_CONNECTIONS} connections, ` +
        `${HTTP_SECONDS} s per row after 2000 warm-up requests, median of ${HTTP_ROUNDS} interleaved rounds; "x floor": requests/s over the framework-free notify floor's; ` +
        `"paired": the median over rounds of the ratio within each round; ` +
        `"server µs": the server thread's busy event-loop time per request, which requests/s hides when autocannon is what saturates\n`,
    );
    console.log(httpTable(http));
  }
  if (cluster.length) {
    console.log(
      `\nSeveral nodes on PostgreSQL (${process.env.BENCH_POSTGRES_URL ?? 'local server'}): real server processes, ` +
        `autocannon with ${HTTP_CONNECTIONS} connections split over the nodes, random sessions, ${HTTP_SECONDS} s per row\n`,
    );
    console.log(httpTable(cluster));
    const resultOf = (id: string) => cluster.find(({ row }) => row.id === id)?.result;
    const [one, three] = ['cluster/notify/1-node', 'cluster/notify/3-nodes'].map((id) => {
      const result = resultOf(id);
      return result && result.requests / result.seconds;
    });
    const takeover = (cluster.at(-1)?.row as { takeoverMs?: number } | undefined)?.takeoverMs;
    if (one && three) console.log(`\n3 nodes / 1 node: ${(three / one).toFixed(2)}x requests/s`);
    if (takeover !== undefined) console.log(`takeover after SIGKILL of an owner (default lease TTL, 10 s): ${takeover.toFixed(0)} ms`);
  }
  if (loopQueue.length) {
    console.log(
      `\nThe loop at the speed of a queue (issue 37): real server processes, ${process.env.BENCH_LOOP_ITEMS ?? 4000} completions from 64 senders ` +
        `through the client to 16 loops of one session, each consuming what completions() gives it; the agents rows (issue 46): ` +
        `16 sessions of one loop each, following as docs/agent-loop.md shows (LoopWorker, or completions() awaiting each consume); median of ${LOOP_QUEUE_ROUNDS} interleaved rounds by drain rate\n`,
    );
    console.log(loopQueueTable(loopQueue));
  }
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
