import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { dataSourceOptionsFromUrl } from '../../libs/process-notifications/src/persistence/connection/data-source-options.js';
import { LoopStreamRows } from '../../libs/process-notifications/src/persistence/pages/loop-stream-rows.js';
import { JournalCounters } from '../../libs/process-notifications/src/persistence/journal/journal-counters.js';
import { JournalRecordEntity, CONSUMED_KIND } from '../../libs/process-notifications/src/persistence/journal/journal-record.entity.js';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';

// Issue 37: on PostgreSQL a loop's reads cost what they return, not the session. A fresh table
// (no statistics yet, as in every new deployment and every bench run) let the planner join the
// consumed and outcome records on session_id alone and filter the rest: a 256-row page of a loop
// read every record of the session once per row (484,000 rows filtered for 242 returned, 353 ms),
// and a consume's look for the loop's next unconsumed notification did the same per candidate.
// Each read here runs under EXPLAIN ANALYZE on such a fresh table, and the rows its plan touched
// are counted: work per row returned (or per candidate looked at), never per record of the session.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

const RECORDS = 3_000;

interface PlanNode {
  'Node Type': string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans produced or threw away, over all their loops. */
function rowsTouched(node: PlanNode): number {
  const loops = node['Actual Loops'] ?? 1;
  const own = /Scan/.test(node['Node Type']) ? (node['Actual Rows'] ?? 0) * loops : 0;
  const removed =
    ((node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Join Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
    loops;
  return own + removed + (node.Plans ?? []).reduce((sum, child) => sum + rowsTouched(child), 0);
}

describeOnPostgres('a loop’s reads on PostgreSQL', () => {
  const { name: schema, databaseUrl } = freshSchema();
  let dataSource: DataSource;
  const sessionId = randomUUID();
  const busy = randomUUID();
  const quiet = randomUUID();
  const notificationSequences: number[] = [];

  // A manager whose SELECTs run under EXPLAIN ANALYZE too, on `on`: their plans are kept, their
  // rows returned. A statement with data-modifying CTEs (the counts' one statement) runs once,
  // under EXPLAIN ANALYZE, which executes it; its rows are nobody's.
  const explaining = (plans: PlanNode[], on: Pick<EntityManager, 'query'> = dataSource): EntityManager =>
    ({
      query: async (sql: string, parameters: unknown[]) => {
        const modifies = /^\s*WITH/i.test(sql);
        if (modifies || /^\s*SELECT/i.test(sql)) {
          const [row] = (await on.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, parameters)) as Array<{
            'QUERY PLAN': Array<{ Plan: PlanNode }>;
          }>;
          plans.push(row!['QUERY PLAN'][0]!.Plan);
          if (modifies) return [];
        }
        return on.query(sql, parameters);
      },
    }) as unknown as EntityManager;

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA ${schema}`);
    dataSource = await new DataSource(dataSourceOptionsFromUrl(databaseUrl)).initialize();
    const now = new Date().toISOString();
    await dataSource.query(`INSERT INTO pn_sessions (session_id, token_hash, created_at, last_sequence) VALUES ($1, $2, $3, 0)`, [
      sessionId,
      randomUUID(),
      now,
    ]);
    for (const loopId of [busy, quiet]) {
      await dataSource.query(
        `INSERT INTO pn_loops (session_id, loop_id, engine, state, created_at) VALUES ($1, $2, 'codex', 'running', $3)`,
        [sessionId, loopId, now],
      );
    }
    // The busy loop: RECORDS notifications, every one consumed but the last; the quiet loop: one.
    const rows = await dataSource.query(
      `INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at)
       SELECT $1, CASE WHEN i = 0 THEN $3 ELSE $2 END, 'process_notification', gen_random_uuid()::text, 'f', '{}', NULL, $4
       FROM generate_series(0, $5) AS i ORDER BY i RETURNING sequence, idempotency_id, loop_id`,
      [sessionId, busy, quiet, now, RECORDS],
    );
    const busyOnes = (rows as Array<{ sequence: number; idempotency_id: string; loop_id: string }>).filter((row) => row.loop_id === busy);
    notificationSequences.push(...busyOnes.map((row) => Number(row.sequence)));
    await dataSource.query(
      `INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at)
       SELECT $1, $2, '${CONSUMED_KIND}', 'consumed:' || id, 'f', '{}', id, $3 FROM unnest($4::text[]) AS id`,
      [sessionId, busy, now, busyOnes.slice(0, -1).map((row) => row.idempotency_id)],
    );
    await dataSource.query(
      `UPDATE pn_loops SET unconsumed = 1, oldest_unconsumed_sequence = $1, oldest_unconsumed_at = $2 WHERE loop_id = $3`,
      [notificationSequences[0], now, busy],
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await admin!.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin!.destroy();
  });

  it('reads a page of a loop’s stream in work proportional to the page, not to the session', async () => {
    const plans: PlanNode[] = [];
    const page = await new LoopStreamRows(dataSource).page(explaining(plans), sessionId, busy, 0, 256);
    expect(page.more).toBe(true);
    // Every notification of the page was consumed (skipped); its consumed records come later.
    expect(page.rows).toEqual([]);
    expect(plans).toHaveLength(1);
    // 256 journal rows, one probe each for the outcome, the named notification and the consumed record.
    expect(rowsTouched(plans[0]!)).toBeLessThanOrEqual(256 * 4);
  });

  it('finds a loop’s next unconsumed notification with one probe per candidate, not a scan of the session per candidate', async () => {
    const plans: PlanNode[] = [];
    const [last] = (await dataSource.query(`SELECT max(sequence) AS sequence FROM pn_journal WHERE session_id = $1`, [
      sessionId,
    ])) as Array<{
      sequence: number;
    }>;
    // A consumed record of this transaction for the first notification: the counts look past it.
    const consumed = Object.assign(new JournalRecordEntity(), {
      sequence: Number(last!.sequence) + 1,
      sessionId,
      loopId: busy,
      kind: CONSUMED_KIND,
      idempotencyId: `consumed:${randomUUID()}`,
      fingerprint: 'f',
      payload: '{}',
      causeCommandId: randomUUID(),
      createdAt: new Date().toISOString(),
    });
    await dataSource.transaction(async (manager) => {
      await new JournalCounters(dataSource).apply(explaining(plans, manager), [consumed]);
    });
    const [loop] = (await dataSource.query(`SELECT oldest_unconsumed_sequence FROM pn_loops WHERE loop_id = $1`, [busy])) as Array<{
      oldest_unconsumed_sequence: number;
    }>;
    expect(Number(loop!.oldest_unconsumed_sequence)).toBe(notificationSequences.at(-1));
    const next = plans.find((plan) => JSON.stringify(plan).includes('pn_journal'));
    expect(next).toBeDefined();
    // RECORDS candidates, each read once and probed once for its consumed record, and the few
    // rows of the statement's own (the session's and the loop's rows, the unnest of their values);
    // a scan of the session per candidate touches RECORDS times as many.
    expect(rowsTouched(next!)).toBeLessThanOrEqual(RECORDS * 3 + 100);
  });
});
