import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { serverConfigFromEnv, type ServerConfig } from '../../src/config/server-config.js';
import { benchNotification, fingerprintOf } from '../../test/support/notification-fixture.js';
import { startServerWorker, type ServerWorker } from './server-worker.js';
import { tempDatabase } from './temp-database.js';

/** Sizes of the journal-read rows. */
export interface JournalReadsOptions {
  /** Records of the session whose journal is paged (10,000). */
  readonly sessionRecords: number;
  /** Records of other sessions around it in the big-journal row (1,000,000). */
  readonly neighbourRecords: number;
  /** Timed calls per page position. */
  readonly runs: number;
  /** Concurrent readers in the noisy-neighbour row (16). */
  readonly readers: number;
  /** Timed seconds of each quiet or noisy phase of the noisy-neighbour row. */
  readonly seconds: number;
}

/** One line of the journal-reads table. */
export interface JournalReadsResult {
  readonly cells: ReadonlyArray<{ readonly label: string; readonly ms: number }>;
  /** What the figures are, e.g. "median of 21 pages". */
  readonly note: string;
}

export interface JournalReadsRow {
  readonly id: string;
  readonly label: string;
  run(): Promise<JournalReadsResult>;
}

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123';
const NEIGHBOUR_SESSIONS = 1_000;

interface Opened {
  readonly sessionId: string;
  readonly loopId: string;
  readonly token: string;
}

async function call(
  url: string,
  token: string,
  method = 'GET',
  body?: unknown,
  retried = false,
): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    // A kept-alive connection the server closed while it was idle (during the seeding, say).
    if (retried) throw error;
    return call(url, token, method, body, true);
  }
  return { status: response.status, body: await response.json() };
}

async function openSession(base: string): Promise<Opened> {
  const session = (await call(`${base}/v1/sessions`, ADMIN_TOKEN, 'POST')).body as { session_id: string; token: string };
  const loop = (await call(`${base}/v1/sessions/${session.session_id}/loops`, session.token, 'POST')).body as { loop_id: string };
  return { sessionId: session.session_id, token: session.token, loopId: loop.loop_id };
}

/**
 * Writes `records` records of `session` into the journal file straight (as the writer would
 * have, consumed records included), with `neighbours` records of other sessions spread evenly
 * between them, so the session's records are scattered over the whole table.
 */
function seed(path: string, session: Opened, records: number, neighbours: number): void {
  const db = new Database(path);
  try {
    db.pragma('synchronous = OFF');
    const insert = db.prepare(
      'INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const others = Array.from({ length: NEIGHBOUR_SESSIONS }, () => ({ sessionId: randomUUID(), loopId: randomUUID() }));
    const now = new Date().toISOString();
    const notify = (sessionId: string, loopId: string, i: number): void => {
      const commandId = randomUUID();
      const payload = JSON.stringify(benchNotification(sessionId, loopId, i, commandId));
      insert.run(sessionId, loopId, 'process_notification', commandId, fingerprintOf('process_notification', payload), payload, null, now);
    };
    const between = Math.floor(neighbours / records);
    let neighbour = 0;
    db.transaction(() => {
      for (let i = 0; i < records; i++) {
        for (let n = 0; n < between; n++, neighbour++) {
          const other = others[neighbour % others.length]!;
          notify(other.sessionId, other.loopId, neighbour);
        }
        notify(session.sessionId, session.loopId, i);
      }
      for (; neighbour < neighbours; neighbour++) notify(others[neighbour % others.length]!.sessionId, others[0]!.loopId, neighbour);
    })();
  } finally {
    db.close();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function serverConfig(path: string): ServerConfig {
  return {
    ...serverConfigFromEnv({}),
    databaseUrl: `sqlite:${path}`,
    adminToken: ADMIN_TOKEN,
    adminTokenGenerated: false,
    logLevel: 'fatal',
    port: 0,
    // Every record of the paged session stays pending: no loop refuses the seeded ones on restore.
    loopCapacity: 1_000_000,
  };
}

/** Times `GET .../journal?after=` at the start, the middle and the end of the session. */
async function timePages(base: string, session: Opened, records: number, runs: number): Promise<JournalReadsResult> {
  const url = (after: number, limit: number) => `${base}/v1/sessions/${session.sessionId}/journal?after=${after}&limit=${limit}`;
  // Sequences of the session's records, to page from the middle and near the end.
  const sequences: number[] = [];
  for (let after = 0; ;) {
    const page = (await call(url(after, 1000), session.token)).body as { records: Array<{ sequence: number }> };
    if (page.records.length === 0) break;
    sequences.push(...page.records.map((record) => record.sequence));
    after = sequences.at(-1)!;
  }
  if (sequences.length < records) throw new Error(`paged ${sequences.length} records, seeded ${records}`);
  const cells: Array<{ label: string; ms: number }> = [];
  for (const [label, after, limit] of [
    ['first 100', 0, 100],
    ['100 from the middle', sequences[Math.floor(sequences.length / 2)]!, 100],
    ['last 100', sequences.at(-101)!, 100],
    ['1000 from the middle', sequences[Math.floor(sequences.length / 2)]!, 1000],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const started = performance.now();
      const page = await call(url(after, limit), session.token);
      const ms = performance.now() - started;
      if (page.status !== 200) throw new Error(`journal page answered ${page.status}`);
      // The first call is untimed (statement cache, pages of the file into memory).
      if (i > 0) times.push(ms);
    }
    cells.push({ label, ms: median(times) });
  }
  return { cells, note: `median of ${runs} calls (ms, through HTTP)` };
}

// The readers of the noisy-neighbour row, in a worker thread of their own so that their JSON
// parsing does not slow the notify client down: each pages through the session from the start,
// 1,000 records a page, and starts again, until told to stop.
const READERS_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, token, readers } = workerData;
let running = true;
let pages = 0;
parentPort.on('message', () => (running = false));
const reader = async () => {
  let after = 0;
  while (running) {
    const response = await fetch(url + '?after=' + after + '&limit=1000', { headers: { authorization: 'Bearer ' + token } });
    const { records } = await response.json();
    pages++;
    after = records.length === 0 ? 0 : records[records.length - 1].sequence;
  }
};
Promise.all(Array.from({ length: readers }, reader)).then(() => parentPort.postMessage(pages));
`;

/** Notify round trips of `session` for `seconds`, one at a time: their latencies in ms. */
async function notifyLatencies(base: string, session: Opened, seconds: number): Promise<number[]> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  let i = 0;
  while (performance.now() < until) {
    const started = performance.now();
    const answer = await call(`${base}/v1/sessions/${session.sessionId}/process-completions`, session.token, 'POST', {
      ...benchNotification(session.sessionId, session.loopId, i++),
    });
    latencies.push(performance.now() - started);
    if (answer.status !== 202) throw new Error(`notify answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
  return latencies;
}

async function withServer<T>(name: string, work: (base: string, path: string, server: ServerWorker) => Promise<T>): Promise<T> {
  const file = tempDatabase(name);
  const server = await startServerWorker(new URL('./http-server.worker.js', import.meta.url), serverConfig(file.path));
  try {
    return await work(`http://127.0.0.1:${server.port}`, file.path, server);
  } finally {
    await server.close();
    file.remove();
  }
}

/**
 * Journal reads on a SQLite file through the real server over HTTP (issue 23): the page time of
 * one session of `sessionRecords` records alone and inside `neighbourRecords` records of other
 * sessions (the `(session_id, sequence)` index keeps it flat), and another session's notify p50
 * quiet and while `readers` clients page through that session's journal without pause.
 */
export function journalReadsRows(options: JournalReadsOptions): JournalReadsRow[] {
  const pageRow = (id: string, neighbours: number): JournalReadsRow => ({
    id,
    label: `journal page, ${options.sessionRecords} records of one session among ${neighbours} of others`,
    run: () =>
      withServer('pages.db', async (base, path) => {
        const session = await openSession(base);
        seed(path, session, options.sessionRecords, neighbours);
        return timePages(base, session, options.sessionRecords, options.runs);
      }),
  });
  return [
    pageRow('journal/page/alone', 0),
    pageRow('journal/page/1m-neighbours', options.neighbourRecords),
    {
      id: 'journal/noisy-neighbour',
      label: `notify p50 of one session, quiet and with ${options.readers} readers paging another session's ${options.sessionRecords} records`,
      run: () =>
        withServer('noisy.db', async (base, path) => {
          const quiet = await openSession(base);
          const read = await openSession(base);
          seed(path, read, options.sessionRecords, 0);
          await notifyLatencies(base, quiet, 1); // warm-up
          const phases: Record<'quiet' | 'noisy', number[]> = { quiet: [], noisy: [] };
          let pages = 0;
          // Interleaved: quiet, noisy, quiet, noisy; each phase's p50, the median phase reported.
          for (let round = 0; round < 2; round++) {
            phases.quiet.push(median(await notifyLatencies(base, quiet, options.seconds)));
            const readers = new Worker(READERS_SCRIPT, {
              eval: true,
              workerData: { url: `${base}/v1/sessions/${read.sessionId}/journal`, token: read.token, readers: options.readers },
            });
            const done = new Promise<number>((resolve) => readers.once('message', resolve));
            // Let every reader have its first page in flight.
            await new Promise((resolve) => setTimeout(resolve, 500));
            phases.noisy.push(median(await notifyLatencies(base, quiet, options.seconds)));
            readers.postMessage('stop');
            pages += await done;
            await readers.terminate();
          }
          const quietMs = Math.min(...phases.quiet);
          const noisyMs = Math.max(...phases.noisy);
          return {
            cells: [
              { label: 'quiet p50', ms: quietMs },
              { label: `${options.readers} readers p50`, ms: noisyMs },
              { label: 'x quiet', ms: noisyMs / quietMs },
              { label: 'reader pages/s', ms: pages / (2 * (options.seconds + 0.5)) },
            ],
            note: `notify one at a time, ${options.seconds} s per phase, 2 interleaved rounds (best quiet, worst noisy p50, ms)`,
          };
        }),
    },
  ];
}
