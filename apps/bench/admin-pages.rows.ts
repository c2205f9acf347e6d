import Database from 'better-sqlite3';
import { dataSourceOptionsFromUrl } from 'nestjs-process-notifications';
import { LOOP_FILTERS } from 'process-notifications-contract';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { benchNotification, fingerprintOf } from '../../test/support/notification-fixture.js';
import { serverConfigFromEnv } from '../../src/config/server-config.js';
import { createServerApp } from '../../src/server-app.js';
import { tempDatabase } from './temp-database.js';

/** Journal size and shape of the admin rows, and how often each page is timed. */
export interface AdminPagesOptions {
  readonly records: number;
  readonly loops: number;
  readonly loopsPerSession: number;
  readonly runs: number;
}

/** One admin page as the row times it: median and slowest of the runs, in milliseconds. */
export interface AdminPageTiming {
  readonly page: string;
  readonly items: number;
  readonly medianMs: number;
  readonly maxMs: number;
}

export interface AdminPagesResult {
  readonly records: number;
  readonly loops: number;
  /** The migration that adds the counts and fills them from the journal, at the server's start. */
  readonly migrationSeconds: number;
  readonly pages: readonly AdminPageTiming[];
}

export interface AdminPagesRow {
  readonly id: string;
  readonly label: string;
  run(): Promise<AdminPagesResult>;
}

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123';
const CAPACITY = 64;

/**
 * Writes a journal as an older version left it (every migration but the admin counts'):
 * `loops` loops in sessions of `loopsPerSession`, about `records / loops` records each. A quarter
 * of the loops had everything consumed, a quarter is full (more unconsumed than the capacity),
 * the rest has some unconsumed; every tenth loop is stopped; half the loops' records are three
 * hours old (stale), half are new. Returns some journaled command ids, to look up.
 */
async function writeOldJournal(path: string, options: AdminPagesOptions): Promise<string[]> {
  const url = `sqlite:${path}`;
  const base = dataSourceOptionsFromUrl(url);
  const migrations = (base.migrations as Array<new () => { name: string }>).filter((m) => !m.name.startsWith('AdminCounts'));
  const schema = await new DataSource({ ...base, migrations, migrationsRun: true }).initialize();
  await schema.destroy();

  const db = new Database(path);
  const lookups: string[] = [];
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const session = db.prepare('INSERT INTO pn_sessions (session_id, token_hash, created_at) VALUES (?, ?, ?)');
    const loop = db.prepare('INSERT INTO pn_loops (session_id, loop_id, engine, state, created_at) VALUES (?, ?, ?, ?, ?)');
    const record = db.prepare(
      'INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const perLoop = Math.floor(options.records / options.loops);
    const started = Date.now();
    db.transaction(() => {
      let sessionId = '';
      for (let l = 0; l < options.loops; l++) {
        // Creation times a millisecond apart, in creation order, as a running server writes them.
        const createdAt = new Date(started - (options.loops - l) * 1000).toISOString();
        if (l % options.loopsPerSession === 0) {
          sessionId = uuidv7();
          session.run(sessionId, randomUUID().replaceAll('-', '').padEnd(64, '0'), createdAt);
        }
        const loopId = uuidv7();
        loop.run(sessionId, loopId, 'native', l % 10 === 3 ? 'stopped' : 'running', createdAt);
        const consumedShare = [0.5, 0.09, 0.3, 0.3][l % 4]!;
        const consumedCount = Math.round(perLoop * consumedShare);
        const notifications = perLoop - consumedCount;
        const at = new Date(l % 2 === 0 ? started - 3 * 3600_000 : started).toISOString();
        const ids: string[] = [];
        for (let i = 0; i < notifications; i++) {
          const commandId = randomUUID();
          ids.push(commandId);
          const payload = JSON.stringify(benchNotification(sessionId, loopId, i, commandId));
          record.run(
            sessionId,
            loopId,
            'process_notification',
            commandId,
            fingerprintOf('process_notification', payload),
            payload,
            null,
            at,
          );
        }
        // Everything consumed in the first quarter; otherwise the oldest ones, in order.
        for (const commandId of ids.slice(0, consumedCount)) {
          const payload = JSON.stringify({ command_id: commandId, loop_id: loopId });
          record.run(sessionId, loopId, 'process_notification_consumed', `consumed:${commandId}`, 'x'.repeat(64), payload, commandId, at);
        }
        if (l % (options.loops / 20) === 0) lookups.push(ids[ids.length - 1]!);
      }
    })();
  } finally {
    db.close();
  }
  return lookups;
}

async function timePage(base: string, page: string, path: string, runs: number): Promise<AdminPageTiming> {
  const times: number[] = [];
  let items = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = (await response.json()) as Record<string, unknown>;
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
    items = (Object.values(body).find(Array.isArray) as unknown[]).length;
  }
  times.sort((a, b) => a - b);
  return { page, items, medianMs: times[Math.floor(times.length / 2)]!, maxMs: times.at(-1)! };
}

/**
 * The admin read API (spec section 12.1) on a SQLite file with `records` journal records in
 * `loops` loops, through the real server over HTTP: each page timed `runs` times after one
 * untimed call. The journal is written as the previous version left it, so the server's start
 * also times the migration that fills the counts from it.
 */
export function adminPagesRows(options: AdminPagesOptions): AdminPagesRow[] {
  return [
    {
      id: 'admin/pages/file',
      label: `admin pages, ${options.records} records in ${options.loops} loops`,
      async run(): Promise<AdminPagesResult> {
        const file = tempDatabase('admin.db');
        try {
          const lookups = await writeOldJournal(file.path, options);
          const started = performance.now();
          const app = await createServerApp({
            ...serverConfigFromEnv({}),
            databaseUrl: `sqlite:${file.path}`,
            adminToken: ADMIN_TOKEN,
            adminTokenGenerated: false,
            logLevel: 'fatal',
            loopCapacity: CAPACITY,
          });
          const migrationSeconds = (performance.now() - started) / 1000;
          try {
            await app.listen(0, '127.0.0.1');
            const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
            const pages: AdminPageTiming[] = [];
            const time = async (page: string, path: string) => {
              await timePage(base, page, path, 1);
              pages.push(await timePage(base, page, path, options.runs));
            };
            await time('sessions, first page', '/v1/admin/sessions');
            // Ten pages in: the cursor's keyset seek, not an offset.
            let cursor = '';
            for (let i = 0; i < 10; i++) {
              const page = (await (
                await fetch(`${base}/v1/admin/sessions?limit=100${cursor}`, {
                  headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
                })
              ).json()) as { next_cursor: string | null };
              if (!page.next_cursor) break;
              cursor = `&cursor=${page.next_cursor}`;
            }
            await time('sessions, a later page', `/v1/admin/sessions?limit=100${cursor}`);
            await time('sessions, 1000 per page', '/v1/admin/sessions?limit=1000');
            for (const filter of LOOP_FILTERS) await time(`loops, filter=${filter}`, `/v1/admin/loops?filter=${filter}`);
            await time('loops, one session', `/v1/admin/loops?session_id=${await firstSession(base)}`);
            await time('loops, 1000 per page', '/v1/admin/loops?limit=1000');
            let lookup = 0;
            const find = async (): Promise<AdminPageTiming> =>
              timePage(base, 'find by command id', `/v1/admin/notifications/${lookups[lookup++ % lookups.length]!}`, 1);
            const finds = [];
            for (let i = 0; i < options.runs; i++) finds.push(await find());
            finds.sort((a, b) => a.medianMs - b.medianMs);
            pages.push({
              page: 'find by command id',
              items: finds[0]!.items,
              medianMs: finds[Math.floor(finds.length / 2)]!.medianMs,
              maxMs: finds.at(-1)!.medianMs,
            });
            return { records: options.records, loops: options.loops, migrationSeconds, pages };
          } finally {
            await app.close();
          }
        } finally {
          file.remove();
        }
      },
    },
  ];
}

async function firstSession(base: string): Promise<string> {
  const page = (await (
    await fetch(`${base}/v1/admin/sessions?limit=1`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).json()) as {
    sessions: Array<{ session_id: string }>;
  };
  return page.sessions[0]!.session_id;
}
