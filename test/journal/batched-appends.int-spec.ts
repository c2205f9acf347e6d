import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptionsFromUrl } from '../../libs/process-notifications/src/persistence/connection/data-source-options.js';
import { JournalWriter, type JournalCommit } from '../../libs/process-notifications/src/persistence/journal/journal-writer.service.js';
import { SessionLeases } from '../../libs/process-notifications/src/persistence/leases/session-leases.service.js';
import { IdempotencyCollisionError } from '../../libs/process-notifications/src/errors/idempotency-collision.error.js';
import type { JournalDraft } from '../../libs/process-notifications/src/persistence/journal/journal-draft.interface.js';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';

// Issue 37: on PostgreSQL the writer inserts a batch's consecutive plain appends in one statement
// (one round trip instead of one per append). That fast path must answer exactly what appending
// one by one answers. Property test: random workloads (new ids, identical retries, another payload
// under a used id, repeats within one batch, two sessions, a lifecycle-like write between appends,
// consumes of one or several ids, which insert their consumed records with the appends)
// run on PostgreSQL (the fast path) and on SQLite (one by one); every caller's answer and every
// session's journal, in order, must be the same.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

type Answer = 'appended' | 'duplicate' | { collision: readonly string[] } | Array<'consumed' | 'again' | 'not found'>;
type Op =
  | { kind: 'append'; session: number; id: number; variant: number }
  | { kind: 'other'; session: number; id: number }
  | { kind: 'consume'; session: number; ids: number[] };

// A small deterministic generator: a failing seed reproduces.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function workload(seed: number): Op[][] {
  const next = random(seed);
  const pick = (n: number) => Math.floor(next() * n);
  // A few batches; later ones retry and collide with earlier ones' ids.
  return Array.from({ length: 3 }, () =>
    Array.from({ length: 20 + pick(60) }, (): Op => {
      if (next() < 0.05) return { kind: 'other', session: pick(2), id: pick(12) };
      if (next() < 0.25) return { kind: 'consume', session: pick(2), ids: Array.from({ length: 1 + pick(3) }, () => pick(12)) };
      return { kind: 'append', session: pick(2), id: pick(12), variant: next() < 0.8 ? 0 : 1 };
    }),
  );
}

interface Store {
  readonly writer: JournalWriter;
  readonly sessions: readonly string[];
  readonly commits: JournalCommit[];
  journal(sessionId: string): Promise<Array<{ idempotency_id: string; kind: string; payload: string }>>;
  /** The sequences of both sessions' records. */
  sequences(): Promise<number[]>;
  /** The admin counts of the session's loop: its unconsumed count and its oldest unconsumed notification's id. */
  loopCounts(sessionId: string): Promise<Array<{ unconsumed: number; oldest: string | null }>>;
  close(): Promise<void>;
}

const LOOP = '0195a0a0-0000-7000-8000-000000000001';

function draftOf(sessions: readonly string[], op: Exclude<Op, { kind: 'consume' }>, ids: readonly string[]): JournalDraft {
  const sessionId = sessions[op.session]!;
  if (op.kind === 'other') {
    // A write that is not a plain append (as a lifecycle record's is): it ends a run of appends.
    return { sessionId, loopId: LOOP, kind: 'started', idempotencyId: `other:${ids[op.id]}`, payload: { command_id: ids[op.id] } };
  }
  return {
    sessionId,
    loopId: LOOP,
    kind: 'process_notification',
    idempotencyId: ids[op.id]!,
    payload: {
      command_id: ids[op.id],
      session_id: sessionId,
      loop_id: LOOP,
      process_handle: `v${op.variant}`,
      state: 'exited',
      reason: 'exited',
    },
  };
}

async function run(store: Store, batches: Op[][], ids: readonly string[]): Promise<Answer[][]> {
  const answers: Answer[][] = [];
  // Ids a loop holds, as its pending set would: journaled for it in an earlier batch (held ids
  // skip the lookup; an id held but consumed since answers as consumed before).
  const journaled = new Set<string>();
  for (const batch of batches) {
    // Queued in one turn: one batch (one transaction) of the writer.
    answers.push(
      await Promise.all(
        batch.map(async (op): Promise<Answer> => {
          if (op.kind === 'consume') {
            const sessionId = store.sessions[op.session]!;
            const commandIds = op.ids.map((id) => ids[id]!);
            const held = new Set(commandIds.filter((id) => journaled.has(`${op.session}:${id}`)));
            const consumptions = await store.writer.consume(sessionId, LOOP, commandIds, (id) => held.has(id));
            return consumptions.map((answer) => ('notFound' in answer ? 'not found' : answer.consumed ? 'consumed' : 'again'));
          }
          const draft = draftOf(store.sessions, op, ids);
          try {
            if (op.kind === 'other') {
              await store.writer.write(async (_manager, journal) => journal.append(draft), draft.sessionId);
              return 'appended';
            }
            return (await store.writer.append(draft)).appended ? 'appended' : 'duplicate';
          } catch (error) {
            if (error instanceof IdempotencyCollisionError) return { collision: error.differingFields ?? [] };
            throw error;
          }
        }),
      ),
    );
    for (const op of batch) if (op.kind === 'append') journaled.add(`${op.session}:${ids[op.id]}`);
  }
  return answers;
}

describeOnPostgres('batched appends on PostgreSQL answer as one-by-one appends do', () => {
  const { name: schema, databaseUrl } = freshSchema();
  const dirs: string[] = [];

  const postgres = async (): Promise<Store> => {
    const dataSource = await new DataSource(dataSourceOptionsFromUrl(databaseUrl)).initialize();
    const leases = new SessionLeases(dataSource, { leaseTtlMs: 600_000 });
    const writer = new JournalWriter(dataSource, leases, {});
    await writer.onModuleInit();
    const sessions = [randomUUID(), randomUUID()];
    for (const sessionId of sessions) leases.hold(sessionId, (await leases.acquire(sessionId))!);
    return store(dataSource, writer, sessions, async () => {
      await leases.release();
    });
  };
  const sqlite = async (): Promise<Store> => {
    const dir = mkdtempSync(join(tmpdir(), 'pn-batched-appends-'));
    dirs.push(dir);
    const dataSource = await new DataSource(dataSourceOptionsFromUrl(`sqlite:${join(dir, 'journal.db')}`)).initialize();
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource, {}), {});
    await writer.onModuleInit();
    return store(dataSource, writer, [randomUUID(), randomUUID()], async () => undefined);
  };
  const store = async (dataSource: DataSource, writer: JournalWriter, sessions: string[], release: () => Promise<void>): Promise<Store> => {
    const p = (index: number) => dataSource.driver.createParameter(`p${index}`, index);
    // The loop's row, whose counts every transaction's records change.
    for (const sessionId of sessions) {
      await dataSource.query(
        `INSERT INTO pn_loops (session_id, loop_id, engine, state, created_at) VALUES (${p(0)}, ${p(1)}, 'native', 'running', ${p(2)})`,
        [sessionId, LOOP, new Date().toISOString()],
      );
    }
    const commits: JournalCommit[] = [];
    writer.commits$.subscribe((commit) => commits.push(commit));
    return {
      writer,
      sessions,
      commits,
      journal: (sessionId) =>
        dataSource.query(
          `SELECT idempotency_id, kind, payload FROM pn_journal WHERE session_id = ${dataSource.driver.createParameter('p0', 0)} ORDER BY sequence`,
          [sessionId],
        ),
      sequences: async () =>
        (
          (await dataSource.query(
            `SELECT sequence FROM pn_journal WHERE session_id IN (${dataSource.driver.createParameter('p0', 0)}, ${dataSource.driver.createParameter('p1', 1)})`,
            sessions,
          )) as Array<{ sequence: number | string }>
        ).map((row) => Number(row.sequence)),
      loopCounts: async (sessionId) =>
        (
          (await dataSource.query(
            `SELECT l.unconsumed, j.idempotency_id AS oldest FROM pn_loops l
             LEFT JOIN pn_journal j ON j.sequence = l.oldest_unconsumed_sequence WHERE l.session_id = ${p(0)}`,
            [sessionId],
          )) as Array<{ unconsumed: number | string; oldest: string | null }>
        ).map((row) => ({ unconsumed: Number(row.unconsumed), oldest: row.oldest })),
      close: async () => {
        await release();
        await writer.onModuleDestroy();
        await dataSource.destroy();
      },
    };
  };

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA "${schema}"`);
  });

  afterAll(async () => {
    await admin!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin!.destroy();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('workload %i: the same answers and the same journals', async (seed) => {
    const batches = workload(seed);
    const ids = Array.from({ length: 12 }, () => randomUUID());
    const [fast, oneByOne] = [await postgres(), await sqlite()];
    try {
      const fastAnswers = await run(fast, batches, ids);
      expect(fastAnswers).toEqual(await run(oneByOne, batches, ids));
      for (const i of [0, 1]) {
        // The session ids differ between the stores; the payloads name them.
        const rows = async (s: Store) =>
          (await s.journal(s.sessions[i]!)).map((row) => ({ ...row, payload: row.payload.split(s.sessions[i]!).join('<session>') }));
        expect(await rows(fast)).toEqual(await rows(oneByOne));
        // The loop counts changed in one statement on PostgreSQL, in several on SQLite.
        expect(await fast.loopCounts(fast.sessions[i]!)).toEqual(await oneByOne.loopCounts(oneByOne.sessions[i]!));
      }
      // A retry or a collision draws no sequence: the workload's records are numbered without a gap.
      const sequences = ((await fast.sequences()) as number[]).sort((a, b) => a - b);
      expect(sequences.at(-1)! - sequences[0]! + 1).toBe(sequences.length);
      // Each workload batch was one transaction on PostgreSQL: the fast path ran, not retries alone.
      expect(fast.commits.map((commit) => commit.size)).toEqual(batches.map((batch) => batch.length));
    } finally {
      await fast.close();
      await oneByOne.close();
    }
  });
});
