import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { benchNotification } from '../../test/support/notification-fixture.js';
import { withModuleContext } from './module-context.js';

// `npm run bench:memory`: does resident memory stay flat while the module works for a long time?
// BENCH_SOAK_CYCLES notify + consume cycles (default 1,000,000) over BENCH_SOAK_SESSIONS sessions
// (default 10,000, one loop each), 64 at a time, on a temp file journal (in memory the journal
// itself would be resident; TMPDIR=/dev/shm keeps it off the disk, so fsync does not set the
// pace). Prints resident memory and heap after every twentieth of the run, measured after a full
// garbage collection when node runs with --expose-gc (the script does), and how far each sample
// after the first tenth strays from the sample at the first tenth.
const CYCLES = Number(process.env.BENCH_SOAK_CYCLES ?? 1_000_000);
const SESSIONS = Number(process.env.BENCH_SOAK_SESSIONS ?? 10_000);
const CONCURRENCY = 64;
const SAMPLES = 20;

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

function sample(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heap: heapUsed };
}

await withModuleContext('file', 1_000, async (service) => {
  const started = Date.now();
  const loops: Array<{ sessionId: string; loopId: string }> = [];
  for (let i = 0; i < SESSIONS; i++) {
    const { sessionId } = await service.openSession();
    const { loopId } = await service.openLoop(sessionId);
    loops.push({ sessionId, loopId });
  }
  console.log(`${SESSIONS} sessions with a loop each opened in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  let next = 0;
  let done = 0;
  const every = Math.max(1, Math.floor(CYCLES / SAMPLES));
  const samples: Array<{ cycles: number; seconds: number; rss: number; heap: number }> = [];
  const cycle = async (n: number): Promise<void> => {
    const { sessionId, loopId } = loops[n % SESSIONS]!;
    const commandId = randomUUID();
    const delivery = await service.notifyProcessCompletion(sessionId, benchNotification(sessionId, loopId, n, commandId));
    if (delivery.disposition !== 'accepted') throw new Error(`cycle ${n}: ${delivery.disposition}`);
    const { consumed } = await service.consume(sessionId, loopId, commandId);
    if (!consumed) throw new Error(`cycle ${n}: not consumed`);
  };
  const soakStarted = Date.now();
  const worker = async (): Promise<void> => {
    while (next < CYCLES) {
      await cycle(next++);
      if (++done % every === 0) {
        const taken = { cycles: done, seconds: (Date.now() - soakStarted) / 1000, ...sample() };
        samples.push(taken);
        console.log(`${taken.cycles} cycles, ${taken.seconds.toFixed(0)} s: resident ${mib(taken.rss)} MiB, heap ${mib(taken.heap)} MiB`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const base = samples[Math.floor(SAMPLES / 10) - 1] ?? samples[0]!;
  console.log(`\n| cycles | seconds | resident MiB | heap MiB | resident vs cycle ${base.cycles} |`);
  console.log('|---:|---:|---:|---:|---:|');
  for (const s of samples) {
    console.log(
      `| ${s.cycles} | ${s.seconds.toFixed(0)} | ${mib(s.rss)} | ${mib(s.heap)} | ${(((s.rss - base.rss) / base.rss) * 100).toFixed(1)}% |`,
    );
  }
  const after = samples.filter((s) => s.cycles >= base.cycles);
  const worst = Math.max(...after.map((s) => Math.abs(s.rss - base.rss) / base.rss));
  const seconds = (Date.now() - soakStarted) / 1000;
  console.log(
    `\n${CYCLES} cycles in ${seconds.toFixed(0)} s (${Math.round(CYCLES / seconds)} cycles/s); resident memory after the first tenth ` +
      `strays at most ${(worst * 100).toFixed(1)}% from ${mib(base.rss)} MiB`,
  );
});
