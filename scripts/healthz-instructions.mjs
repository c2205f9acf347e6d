// Instructions per `GET /healthz` of the built server, and of a bare Nest + Fastify app answering
// a constant, counted by valgrind's callgrind over a fixed number of requests: a figure that
// does not move with the machine's speed, where requests/s and CPU time on a shared VM move by
// up to 2x between rounds. User space of the server process only (its threads included; the
// kernel's side of each syscall is not counted).
//
//   npm run build && node scripts/healthz-instructions.mjs [file|memory|bare] [requests] [warm-up]
//
// CONNECTIONS=64 counts at the bench's load (16 by default); KEEP=<dir> copies callgrind's output
// there to read with callgrind_annotate.
//
// Needs valgrind (`apt-get install -y valgrind`). Under callgrind a server runs about 50x slower:
// 20,000 warm-up and 10,000 counted requests take about a minute.
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { URL, fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { healthzServerEnv, waitForHealthz, writeBareHealthzApp } from './healthz-servers.mjs';

const [kind = 'file', requests = '10000', warmup = '20000'] = process.argv.slice(2);
if (!['file', 'memory', 'bare'].includes(kind)) throw new Error(`kind must be file, memory or bare, got ${kind}`);
const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'pn-healthz-instructions-'));
const bare = writeBareHealthzApp(root);
const port = 20_000 + Math.floor(Math.random() * 20_000);
const env = healthzServerEnv(kind, dir, port);
const out = join(dir, 'callgrind.out');
const server = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${out}`,
    process.execPath,
    kind === 'bare' ? bare : join(root, 'dist/src/main.js'),
  ],
  { cwd: root, env, stdio: 'ignore' },
);
const url = `http://127.0.0.1:${port}/healthz`;
try {
  await waitForHealthz(url, server, 300_000, 500);
  const load = async (amount) => {
    const result = await autocannon({ url, connections: Number(process.env.CONNECTIONS ?? 16), amount, timeout: 60 });
    if (result.non2xx || result.errors || result.timeouts) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
    return result.requests.total;
  };
  // JIT tiers and a young heap settle during the warm-up; only the counted requests are measured.
  await load(Number(warmup));
  execFileSync('callgrind_control', ['-i', 'on', String(server.pid)], { stdio: 'ignore' });
  const answered = await load(Number(requests));
  execFileSync('callgrind_control', ['-i', 'off', String(server.pid)], { stdio: 'ignore' });
  execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' });
  const totals = readdirSync(dir)
    .filter((name) => name.startsWith('callgrind.out'))
    .map((name) => Number(/^totals: (\d+)/m.exec(readFileSync(join(dir, name), 'utf8'))?.[1] ?? 0));
  const instructions = Math.max(...totals);
  console.log(
    `${kind}: ${(instructions / answered / 1000).toFixed(1)} thousand instructions per GET /healthz (${answered} requests after ${warmup} warm-up)`,
  );
} finally {
  server.kill('SIGKILL');
  // KEEP=<dir> keeps the callgrind output for callgrind_annotate.
  if (process.env.KEEP) execFileSync('cp', ['-r', dir, process.env.KEEP]);
  rmSync(dir, { recursive: true, force: true });
  rmSync(bare, { force: true });
}
