import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type EntityManager } from 'typeorm';
import { dataSourceOptionsFromUrl } from '../../libs/process-notifications/src/persistence/connection/data-source-options.js';
import { LoopStreamRows, TAIL_WALK_RECORDS } from '../../libs/process-notifications/src/persistence/pages/loop-stream-rows.js';
import type { LoopStreamRange } from '../../libs/process-notifications/src/persistence/pages/loop-stream-row.js';

// A tail read of many sessions' streams on SQLite (LoopStreamRows.tailPage) walks the journal in
// sequence order near its end and takes the sessions' index further back: the same statement but
// for the index it may use. Property test: on a journal of several sessions (and sessions no range
// reads), both reads give every random set of ranges the same page; and which one runs is checked
// by its plan, since choosing by position is the point.
describe('a tail read of many sessions on SQLite', () => {
  const SESSIONS = 6;
  const RECORDS = TAIL_WALK_RECORDS * 4;
  let dir: string;
  let dataSource: DataSource;
  let sessions: Array<{ sessionId: string; loops: string[] }>;
  let last = 0;
  // A fixed generator: a failure replays.
  let seed = 46;
  const random = (n: number): number => {
    // In 32-bit integer arithmetic: a product past 2 ** 53 would lose its low bits.
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return Math.floor((seed / 2 ** 32) * n);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pn-tail-walk-'));
    dataSource = await new DataSource(dataSourceOptionsFromUrl(`sqlite:${join(dir, 'journal.db')}`)).initialize();
    const now = new Date().toISOString();
    sessions = Array.from({ length: SESSIONS }, () => ({ sessionId: randomUUID(), loops: [randomUUID(), randomUUID()] }));
    for (const { sessionId, loops } of sessions) {
      await dataSource.query('INSERT INTO pn_sessions (session_id, token_hash, created_at, last_sequence) VALUES (?, ?, ?, 0)', [
        sessionId,
        randomUUID(),
        now,
      ]);
      for (const loopId of loops) {
        await dataSource.query(
          "INSERT INTO pn_loops (session_id, loop_id, engine, state, created_at) VALUES (?, ?, 'codex', 'running', ?)",
          [sessionId, loopId, now],
        );
      }
    }
    // Notifications, consumed records of earlier ones, and records without a loop, in random order.
    const pending = new Map<string, Array<{ loopId: string; commandId: string }>>(sessions.map(({ sessionId }) => [sessionId, []]));
    await dataSource.transaction(async (manager) => {
      for (let i = 0; i < RECORDS; i++) {
        const { sessionId, loops } = sessions[random(SESSIONS)]!;
        const waiting = pending.get(sessionId)!;
        const action = random(10);
        if (action < 6 || waiting.length === 0) {
          const loopId = loops[random(loops.length)]!;
          const commandId = randomUUID();
          const payload = JSON.stringify({ command_id: commandId, session_id: sessionId, loop_id: loopId });
          await insert(manager, [sessionId, loopId, 'process_notification', commandId, payload, null, now]);
          waiting.push({ loopId, commandId });
        } else if (action < 9) {
          const [{ loopId, commandId }] = waiting.splice(random(waiting.length), 1) as [{ loopId: string; commandId: string }];
          await insert(manager, [sessionId, loopId, 'process_notification_consumed', `consumed:${commandId}`, '{}', commandId, now]);
        } else {
          await insert(manager, [sessionId, null, 'session_noted', randomUUID(), '{}', null, now]);
        }
      }
    });
    [{ last }] = (await dataSource.query('SELECT max(sequence) AS last FROM pn_journal')) as [{ last: number }];
  });

  afterAll(async () => {
    await dataSource?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (manager: EntityManager, values: unknown[]) =>
    manager.query(
      'INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [...values.slice(0, 4), 'f', ...values.slice(4)],
    );

  // Ranges of some of the sessions (never all: the walk must skip the others' records), from `from` on.
  const rangesFrom = (from: number): LoopStreamRange[] => {
    const read = sessions.slice(0, 2 + random(SESSIONS - 2));
    return Array.from({ length: 2 + random(6) }, () => {
      const { sessionId, loops } = read[random(read.length)]!;
      return { sessionId, loopId: random(2) === 0 ? null : loops[random(loops.length)]!, after: from + random(last - from + 1) };
    });
  };

  it('gives every set of ranges the same page walked as over the sessions’ index', async () => {
    const walked = new LoopStreamRows(dataSource, Number.POSITIVE_INFINITY);
    const indexed = new LoopStreamRows(dataSource, Number.NEGATIVE_INFINITY);
    let rows = 0;
    for (let read = 0; read < 200; read++) {
      // Half the reads near the end, half anywhere.
      const ranges = rangesFrom(read % 2 === 0 ? Math.max(0, last - 200) : 0);
      const limit = 1 + random(100);
      const walk = await walked.tailPage(dataSource.manager, ranges, limit);
      expect(walk).toEqual(await indexed.tailPage(dataSource.manager, ranges, limit));
      rows += walk.rows.length;
    }
    expect(rows).toBeGreaterThan(1_000);
  });

  // The plan of each tail statement a read of `ranges` runs.
  async function plansOf(ranges: LoopStreamRange[]): Promise<string[]> {
    const plans: string[] = [];
    const explaining = {
      query: async (sql: string, parameters?: unknown[]) => {
        if (sql.includes('FROM (SELECT * FROM pn_journal')) {
          const plan = (await dataSource.query(`EXPLAIN QUERY PLAN ${sql}`, parameters)) as Array<{ detail: string }>;
          plans.push(plan.map(({ detail }) => detail).join('; '));
        }
        return dataSource.query(sql, parameters);
      },
    } as unknown as EntityManager;
    await new LoopStreamRows(dataSource).tailPage(explaining, ranges, 100);
    return plans;
  }

  it('walks the journal in sequence order from near its end, and takes the sessions’ index from further back', async () => {
    const walked = /SEARCH pn_journal USING INTEGER PRIMARY KEY \(rowid>\?\)/;
    const indexed = /SEARCH pn_journal USING INDEX ix_pn_journal_session_sequence \(session_id=\? AND sequence>\?\)/;
    // Every range at `from` (the read starts at the lowest).
    const planFrom = async (from: number) => (await plansOf(rangesFrom(from).map((range) => ({ ...range, after: from }))))[0];
    await expect(planFrom(last - 10)).resolves.toMatch(walked);
    await expect(planFrom(last - TAIL_WALK_RECORDS)).resolves.toMatch(walked);
    await expect(planFrom(last - TAIL_WALK_RECORDS - 1)).resolves.toMatch(indexed);
    await expect(planFrom(last - 3 * TAIL_WALK_RECORDS)).resolves.toMatch(indexed);
  });
});
