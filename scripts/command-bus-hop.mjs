// What the command bus costs a write (docs/architecture.md, "Every write is a command"): the same
// command executed through `CommandBus.execute` and by calling its handler, on one module over a
// SQLite file, for a write that commits (a token rotation) and for one refused before any I/O (an
// open with a malformed id), where what differs is the bus alone. Interleaved rounds, medians of
// their means; the machine's load moves both the same way. Run after `npm run build`:
//   node scripts/command-bus-hop.mjs
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  OpenSessionCommand,
  ProcessNotificationsModule,
  ProcessNotificationsService,
  RotateSessionTokenCommand,
} from 'nestjs-process-notifications';
// Not exported by the package: the module's own handler instances, got by their class.
import { OpenSessionHandler } from '../libs/process-notifications/dist/commands/open-session/open-session.handler.js';
import { RotateSessionTokenHandler } from '../libs/process-notifications/dist/commands/rotate-session-token/rotate-session-token.handler.js';

const ROUNDS = 5;
const COMMITS = 1000;
const REFUSALS = 50_000;

/** Mean microseconds per call of `call`, run `n` times one after another (a tenth first, to warm up). */
async function mean(n, call) {
  for (let i = 0; i < n / 10; i++) await call();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  return Number(process.hrtime.bigint() - start) / n / 1000;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const dir = mkdtempSync(join(tmpdir(), 'pn-command-bus-hop-'));
const app = await NestFactory.createApplicationContext(
  ProcessNotificationsModule.forRoot({ databaseUrl: `sqlite:${join(dir, 'journal.db')}` }),
  { logger: ['error', 'warn'] },
);
try {
  const bus = app.get(CommandBus);
  const rotate = app.get(RotateSessionTokenHandler);
  const open = app.get(OpenSessionHandler);
  const { sessionId } = await app.get(ProcessNotificationsService).openSession();
  const refused = (execute) => () => execute(new OpenSessionCommand('not-a-uuid')).catch(() => undefined);
  const rows = {
    'rotate (commits), through the bus': { n: COMMITS, call: () => bus.execute(new RotateSessionTokenCommand(sessionId)), means: [] },
    'rotate (commits), handler called': { n: COMMITS, call: () => rotate.execute(new RotateSessionTokenCommand(sessionId)), means: [] },
    'open refused (no I/O), through the bus': { n: REFUSALS, call: refused((command) => bus.execute(command)), means: [] },
    'open refused (no I/O), handler called': { n: REFUSALS, call: refused((command) => open.execute(command)), means: [] },
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of Object.values(rows)) row.means.push(await mean(row.n, row.call));
  }
  const at = Object.fromEntries(Object.entries(rows).map(([label, row]) => [label, median(row.means)]));
  for (const [label, us] of Object.entries(at)) console.log(`${label.padEnd(40)} ${us.toFixed(2)} µs`);
  const hop = at['open refused (no I/O), through the bus'] - at['open refused (no I/O), handler called'];
  const commit = at['rotate (commits), handler called'];
  console.log(`the hop: ${hop.toFixed(2)} µs, ${((100 * hop) / commit).toFixed(2)} % of a rotation that commits`);
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
