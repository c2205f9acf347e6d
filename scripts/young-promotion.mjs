// Tells a slow server process from a fast one, which requests/s on a shared VM cannot: for each
// of N fresh processes, the bytes promoted to the old generation per young collection under
// `GET /healthz` load (V8's `--trace-gc-nvp`), and the process's CPU time per request
// (`/proc/<pid>/stat`). A process in which V8 has tenured one of Node's per-request allocation
// sites promotes about 3 MB per collection where a fast one promotes a few kilobytes
// (docs/benchmarks.md, "What /healthz costs").
//
//   npm run build && node scripts/young-promotion.mjs [memory|file|bare] [processes] [node flags...]
//
// e.g. `node scripts/young-promotion.mjs memory 8` against
// `node scripts/young-promotion.mjs memory 8 --no-allocation-site-pretenuring`. Each process:
// 2,000 warm-up requests, then 4 s at 64 connections.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { healthzServerEnv, waitForHealthz, writeBareHealthzApp } from './healthz-servers.mjs';

const [kind = 'memory', processes = '4', ...flags] = process.argv.slice(2);
if (!['file', 'memory', 'bare'].includes(kind)) throw new Error(`kind must be file, memory or bare, got ${kind}`);
const root = fileURLToPath(new URL('..', import.meta.url));
// Above this mean a process is slow: slow ones measured 3.2 MB during the load, fast ones under 0.3 MB.
const SLOW_BYTES = 1024 * 1024;
// Linux's clock tick for /proc/<pid>/stat times, as good as fixed on every distribution.
const TICKS_PER_SECOND = 100;

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

async function measure() {
  const dir = mkdtempSync(join(tmpdir(), 'pn-young-promotion-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const script = kind === 'bare' ? writeBareHealthzApp(root) : join(root, 'dist/src/main.js');
  const server = spawn(process.execPath, [...flags, '--trace-gc-nvp', script], {
    cwd: root,
    env: healthzServerEnv(kind, dir, port),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let counting = false;
  const promoted = [];
  let pending = '';
  server.stdout.setEncoding('utf8').on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines) {
      const match = / gc=s .* promoted=(\d+)/.exec(line);
      if (counting && match) promoted.push(Number(match[1]));
    }
  });
  const url = `http://127.0.0.1:${port}/healthz`;
  try {
    await waitForHealthz(url, server, 60_000, 100);
    await autocannon({ url, connections: 64, amount: 2000 });
    counting = true;
    const before = cpuMs(server.pid);
    const result = await autocannon({ url, connections: 64, duration: 4 });
    const usPerRequest = ((cpuMs(server.pid) - before) * 1000) / result.requests.total;
    counting = false;
    const mean = promoted.reduce((sum, bytes) => sum + bytes, 0) / Math.max(1, promoted.length);
    return { mean, collections: promoted.length, usPerRequest };
  } finally {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    if (kind === 'bare') rmSync(script, { force: true });
  }
}

let slow = 0;
for (let i = 1; i <= Number(processes); i++) {
  const { mean, collections, usPerRequest } = await measure();
  if (mean > SLOW_BYTES) slow++;
  console.log(
    `${kind} ${i}: ${(mean / 1024).toFixed(0)} KB promoted per young collection (${collections}), ` +
      `${usPerRequest.toFixed(1)} µs CPU per request${mean > SLOW_BYTES ? ', slow' : ''}`,
  );
}
console.log(`${kind}${flags.length ? ` with ${flags.join(' ')}` : ''}: ${slow} of ${processes} processes slow`);
