import fc from 'fast-check';
import { JournalUnavailableError, type ProcessNotificationsService } from 'nestjs-process-notifications';
import type { DataSource } from 'typeorm';
import { tempDir } from '../durability/support/temp-dir.js';
import { dataSourceOf } from '../notifications/support/journal-probe.js';
import { revertThrough } from '../support/migrations.js';
import { inFreshSchema } from '../support/postgres.js';
import { createTestApp, notification } from '../support/test-app.js';

// The admin counts (spec section 12.1) are kept by the journal writer as records commit; they
// must always equal what a scan of the journal says. The oracle here reads the journal rows and
// counts in JavaScript, independently of the library's SQL.

interface Counts {
  loops: Record<string, { unconsumed: number; oldestSequence: number | null; oldestAt: string | null }>;
  sessions: Record<string, number>;
}

/** The counts as the database keeps them. */
async function keptCounts(db: DataSource): Promise<Counts> {
  const loops = (await db.query(
    'SELECT session_id, loop_id, unconsumed, oldest_unconsumed_sequence, oldest_unconsumed_at FROM pn_loops',
  )) as Array<Record<string, unknown>>;
  const sessions = (await db.query('SELECT session_id, last_sequence FROM pn_sessions')) as Array<Record<string, unknown>>;
  return {
    loops: Object.fromEntries(
      loops.map((row) => [
        `${String(row.session_id)}/${String(row.loop_id)}`,
        {
          unconsumed: Number(row.unconsumed),
          oldestSequence: row.oldest_unconsumed_sequence === null ? null : Number(row.oldest_unconsumed_sequence),
          oldestAt: (row.oldest_unconsumed_at as string | null) ?? null,
        },
      ]),
    ),
    sessions: Object.fromEntries(sessions.map((row) => [String(row.session_id), Number(row.last_sequence)])),
  };
}

/** The counts a full scan of the journal gives. */
async function scannedCounts(db: DataSource): Promise<Counts> {
  const records = (await db.query(
    'SELECT sequence, session_id, loop_id, kind, idempotency_id, cause_command_id, created_at FROM pn_journal ORDER BY sequence',
  )) as Array<Record<string, unknown>>;
  const loops = (await db.query('SELECT session_id, loop_id FROM pn_loops')) as Array<Record<string, unknown>>;
  const sessions = (await db.query('SELECT session_id FROM pn_sessions')) as Array<Record<string, unknown>>;
  const consumed = new Set(
    records.filter((r) => r.kind === 'process_notification_consumed').map((r) => `${String(r.session_id)}/${String(r.cause_command_id)}`),
  );
  const counts: Counts = { loops: {}, sessions: {} };
  for (const loop of loops)
    counts.loops[`${String(loop.session_id)}/${String(loop.loop_id)}`] = { unconsumed: 0, oldestSequence: null, oldestAt: null };
  for (const session of sessions) counts.sessions[String(session.session_id)] = 0;
  for (const r of records) {
    counts.sessions[String(r.session_id)] = Number(r.sequence);
    if (r.kind !== 'process_notification' || consumed.has(`${String(r.session_id)}/${String(r.idempotency_id)}`)) continue;
    const loop = counts.loops[`${String(r.session_id)}/${String(r.loop_id)}`]!;
    loop.unconsumed += 1;
    if (loop.oldestSequence === null) Object.assign(loop, { oldestSequence: Number(r.sequence), oldestAt: String(r.created_at) });
  }
  return counts;
}

type Op =
  | { kind: 'deliver'; loop: number }
  | { kind: 'retry'; pick: number }
  | { kind: 'consume'; pick: number }
  | { kind: 'stop'; loop: number }
  | { kind: 'concurrent'; loops: number[] };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('deliver' as const), loop: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retry' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('consume' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stop' as const), loop: fc.nat(3) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('concurrent' as const), loops: fc.array(fc.nat(3), { minLength: 2, maxLength: 6 }) }),
  },
);

/** Runs `ops` on two sessions of two loops each (capacity 2), ignoring the refusals they meet. */
async function play(service: ProcessNotificationsService, ops: readonly Op[]): Promise<void> {
  const loops: Array<{ sessionId: string; loopId: string }> = [];
  for (let s = 0; s < 2; s++) {
    const { sessionId } = await service.openSession();
    for (let l = 0; l < 2; l++) loops.push({ sessionId, loopId: (await service.openLoop(sessionId)).loopId });
  }
  const sent: Array<Record<string, unknown>> = [];
  const ignore = () => undefined;
  const deliver = (n: Record<string, unknown>) => service.notifyProcessCompletion(n.session_id as string, n).then(ignore, ignore);
  const fresh = (loop: number) => {
    const n = notification(loops[loop]!.sessionId, loops[loop]!.loopId);
    sent.push(n);
    return n;
  };
  for (const step of ops) {
    if (step.kind === 'deliver') await deliver(fresh(step.loop));
    if (step.kind === 'concurrent') await Promise.all(step.loops.map((loop) => deliver(fresh(loop))));
    if (step.kind === 'retry' && sent.length > 0) await deliver({ ...sent[step.pick % sent.length]! });
    if (step.kind === 'stop') await service.stopLoop(loops[step.loop]!.sessionId, loops[step.loop]!.loopId);
    if (step.kind === 'consume') {
      const pending = (await Promise.all(loops.map((l) => service.pendingNotifications(l.sessionId, l.loopId)))).flat();
      const chosen = pending[step.pick % Math.max(1, pending.length)];
      if (chosen) await service.consume(chosen.sessionId, chosen.loopId, chosen.commandId);
    }
  }
}

// A database written before the counts existed gets them from its journal, once, at start.
async function migrationFillsTheCounts(databaseUrl: string): Promise<void> {
  let app = await createTestApp({ databaseUrl, loopCapacity: 2 });
  let before: Counts;
  try {
    await play(app.service, [
      { kind: 'deliver', loop: 0 },
      { kind: 'deliver', loop: 0 },
      { kind: 'deliver', loop: 0 },
      { kind: 'deliver', loop: 1 },
      { kind: 'consume', pick: 0 },
      { kind: 'stop', loop: 1 },
      { kind: 'deliver', loop: 1 },
      { kind: 'deliver', loop: 2 },
    ]);
    before = await keptCounts(dataSourceOf(app.moduleRef));
    expect(before).toEqual(await scannedCounts(dataSourceOf(app.moduleRef)));
  } finally {
    await app.close();
  }
  await revertThrough(databaseUrl, 'AdminCounts1765100000000');
  app = await createTestApp({ databaseUrl, loopCapacity: 2 });
  try {
    expect(await keptCounts(dataSourceOf(app.moduleRef))).toEqual(before);
    expect(Object.values(before.loops).map((loop) => loop.unconsumed)).toEqual(expect.arrayContaining([2, 2, 1, 0]));
  } finally {
    await app.close();
  }
}

describe('the admin counts kept with the journal', () => {
  it('always equal a scan of the journal, whatever deliveries, retries, refusals, stops and consumes happen', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const app = await createTestApp({ loopCapacity: 2 });
        try {
          await play(app.service, ops);
          const db = dataSourceOf(app.moduleRef);
          expect(await keptCounts(db)).toEqual(await scannedCounts(db));
        } finally {
          await app.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('commit with their record or not at all: a failing count update refuses the delivery and journals nothing', async () => {
    const app = await createTestApp({ loopCapacity: 2 });
    try {
      const db = dataSourceOf(app.moduleRef);
      const { sessionId } = await app.service.openSession();
      const { loopId } = await app.service.openLoop(sessionId);
      const kept = notification(sessionId, loopId);
      await app.service.notifyProcessCompletion(sessionId, kept);
      // The count update of the next append fails inside the writer's transaction.
      await db.query(
        "CREATE TRIGGER refuse_count BEFORE UPDATE OF unconsumed ON pn_loops WHEN NEW.unconsumed > OLD.unconsumed BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
      );
      const refused = notification(sessionId, loopId);
      await expect(app.service.notifyProcessCompletion(sessionId, refused)).rejects.toThrow(JournalUnavailableError);
      const journaled = await db.query('SELECT idempotency_id FROM pn_journal WHERE kind = ?', ['process_notification']);
      expect(journaled).toEqual([{ idempotency_id: kept.command_id }]);
      expect(await keptCounts(db)).toEqual(await scannedCounts(db));

      // Once the fault is gone the identical retry writes it, and the counts follow.
      await db.query('DROP TRIGGER refuse_count');
      await expect(app.service.notifyProcessCompletion(sessionId, { ...refused })).resolves.toMatchObject({ appended: true });
      expect(await keptCounts(db)).toEqual(await scannedCounts(db));
    } finally {
      await app.close();
    }
  });

  it('are filled from the journal by the migration on an existing SQLite database', async () => {
    const dir = tempDir();
    try {
      await migrationFillsTheCounts(`sqlite:${dir.file('journal.db')}`);
    } finally {
      dir.remove();
    }
  });

  it('are filled from the journal by the migration on an existing PostgreSQL database', async () => {
    await inFreshSchema(migrationFillsTheCounts);
  });
});
