import { AdminQueries } from 'nestjs-process-notifications';
import { tempDir } from '../durability/support/temp-dir.js';
import { revertThrough } from '../support/migrations.js';
import { exitedRecord, signalledRecord } from '../support/outcome-records.js';
import { inFreshSchema } from '../support/postgres.js';
import { createTestApp, notification, openSessionWithLoop } from '../support/test-app.js';

const DAY_MS = 24 * 60 * 60 * 1000;

type App = Awaited<ReturnType<typeof createTestApp>>;

/** The signal of each command id's outcome in every view that carries one: all must agree. */
async function signalsSeen(app: App, sessionId: string, loopId: string, commandIds: readonly string[]) {
  const pending = new Map((await app.service.pendingNotifications(sessionId, loopId)).map((p) => [p.commandId, p.outcome]));
  const stored = await app.service.processOutcomes(sessionId, commandIds);
  // The loop's stream from its start: the last event of a command id carries its outcome as known.
  const streamed = new Map<string, string | null | undefined>();
  const start = await app.service.loopEventsStart(sessionId, loopId);
  for (const event of (await app.service.readLoopEvents(sessionId, loopId, start)).events) {
    if (event.kind !== 'consumed') streamed.set(event.notification.commandId, event.notification.outcome?.signal);
  }
  const admin = app.moduleRef.get(AdminQueries);
  return Promise.all(
    commandIds.map(async (id) => {
      const [located] = await admin.findNotification(id);
      return {
        pending: pending.get(id)?.signal,
        stored: stored.get(id)?.signal,
        streamed: streamed.get(id),
        admin: located?.outcome?.signal,
      };
    }),
  );
}

const everywhere = (signal: string | null) => ({ pending: signal, stored: signal, streamed: signal, admin: signal });

// The signal that ended a command (issue 47) reaches the loop as the outcome's `signal` (section
// 14), `null` when the record named none, in the pending view, the loop's stream and the admin's
// view alike; it is kept in the outcome row, so a restart, another node and retention keep it.
async function signalsReachTheLoop(databaseUrl: string): Promise<void> {
  const first = await createTestApp({ databaseUrl });
  const { sessionId, loopId } = await openSessionWithLoop(first.service);
  const segv = notification(sessionId, loopId, { state: 'killed', reason: 'killed' });
  const usr1 = notification(sessionId, loopId, { state: 'killed', reason: 'killed' });
  const timeout = notification(sessionId, loopId, { state: 'timed_out', reason: 'timed_out' });
  const unnamed = notification(sessionId, loopId, { state: 'killed', reason: 'killed' });
  const exited = notification(sessionId, loopId);
  const ids = [segv, usr1, timeout, unnamed, exited].map((n) => n.command_id as string);
  let second: App | undefined;
  let firstOpen = true;
  try {
    // SIGSEGV's record comes before its notification, the others after theirs.
    await first.service.publishProcessLifecycle(sessionId, signalledRecord(sessionId, loopId, ids[0]!, 'killed', 'SIGSEGV'));
    for (const n of [segv, usr1, timeout, unnamed, exited]) await first.service.notifyProcessCompletion(sessionId, n);
    await first.service.publishProcessLifecycle(sessionId, signalledRecord(sessionId, loopId, ids[1]!, 'killed', 'SIGUSR1'));
    await first.service.publishProcessLifecycle(sessionId, signalledRecord(sessionId, loopId, ids[2]!, 'timed_out', 'SIGKILL'));
    await first.service.publishProcessLifecycle(sessionId, signalledRecord(sessionId, loopId, ids[3]!, 'killed', undefined));
    await first.service.publishProcessLifecycle(sessionId, exitedRecord(sessionId, loopId, ids[4]!, 0));
    // A later record naming a command id changes nothing: the first stays its outcome.
    await first.service.publishProcessLifecycle(sessionId, signalledRecord(sessionId, loopId, ids[0]!, 'killed', 'SIGKILL'));

    const expected = [everywhere('SIGSEGV'), everywhere('SIGUSR1'), everywhere('SIGKILL'), everywhere(null), everywhere(null)];
    expect(await signalsSeen(first, sessionId, loopId, ids)).toEqual(expected);
    expect((await first.service.pendingNotifications(sessionId, loopId))[2]!.outcome).toMatchObject({
      kind: 'completed',
      hasExitCode: false,
      exitCode: null,
      signal: 'SIGKILL',
    });

    // The next node (a new node id, taking the session over) reads the same.
    await first.close();
    firstOpen = false;
    second = await createTestApp({ databaseUrl });
    expect(await signalsSeen(second, sessionId, loopId, ids)).toEqual(expected);
    // Retention drops the records' payloads, not the outcome's signal (the stream, which finds an
    // outcome event by its record's payload, is left out here).
    expect(await second.service.pruneJournal(new Date(Date.now() + 31 * DAY_MS))).toBeGreaterThan(0);
    expect((await signalsSeen(second, sessionId, loopId, ids)).map(({ streamed: _s, ...views }) => views)).toEqual(
      expected.map(({ streamed: _s, ...views }) => views),
    );
  } finally {
    if (firstOpen) await first.close();
    await second?.close();
  }
}

// A database whose outcomes were written before the signal column existed: its outcomes read
// `signal: null` after the upgrade, and records journaled after it keep their signal.
async function upgradeKeepsOutcomes(databaseUrl: string): Promise<void> {
  let app = await createTestApp({ databaseUrl });
  const { sessionId, loopId } = await openSessionWithLoop(app.service);
  const before = notification(sessionId, loopId, { state: 'killed', reason: 'killed' });
  const after = notification(sessionId, loopId, { state: 'killed', reason: 'killed' });
  await app.service.notifyProcessCompletion(sessionId, before);
  await app.service.publishProcessLifecycle(
    sessionId,
    signalledRecord(sessionId, loopId, before.command_id as string, 'killed', undefined),
  );
  await app.close();

  await revertThrough(databaseUrl, 'OutcomeSignal1765400000000');
  app = await createTestApp({ databaseUrl });
  try {
    await app.service.notifyProcessCompletion(sessionId, after);
    await app.service.publishProcessLifecycle(
      sessionId,
      signalledRecord(sessionId, loopId, after.command_id as string, 'killed', 'SIGSEGV'),
    );
    const pending = await app.service.pendingNotifications(sessionId, loopId);
    expect(pending.map((p) => [p.commandId, p.outcome?.kind, p.outcome?.signal])).toEqual([
      [before.command_id, 'completed', null],
      [after.command_id, 'completed', 'SIGSEGV'],
    ]);
  } finally {
    await app.close();
  }
}

describe("the outcome's signal (issue 47, real module)", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('SQLite file: every view carries the signal, null when absent, across a restart and retention', async () => {
    await signalsReachTheLoop(`sqlite:${dir.file('pn.db')}`);
  });

  it('PostgreSQL: every view carries the signal, null when absent, on the next node and after retention', async () => {
    await inFreshSchema(signalsReachTheLoop);
  });

  it('SQLite file: outcomes written before the upgrade read signal null, new ones keep theirs', async () => {
    await upgradeKeepsOutcomes(`sqlite:${dir.file('pn.db')}`);
  });

  it('PostgreSQL: outcomes written before the upgrade read signal null, new ones keep theirs', async () => {
    await inFreshSchema(upgradeKeepsOutcomes);
  });
});
