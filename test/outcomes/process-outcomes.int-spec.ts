import { randomUUID } from 'node:crypto';
import type { ProcessNotificationsService } from 'nestjs-process-notifications';
import { tempDir } from '../durability/support/temp-dir.js';
import { exitedRecord, failedRecord, lostRecord } from '../support/outcome-records.js';
import { createTestApp, notification, openSessionWithLoop, useSessionWithLoop } from '../support/test-app.js';

const DAY_MS = 24 * 60 * 60 * 1000;

async function outcomeOf(service: ProcessNotificationsService, sessionId: string, loopId: string, commandId: unknown) {
  const entry = (await service.pendingNotifications(sessionId, loopId)).find((pending) => pending.commandId === commandId);
  if (!entry) throw new Error(`${String(commandId)} is not pending`);
  return entry.outcome;
}

describe('the outcome of a pending notification (section 14, real module)', () => {
  const t = useSessionWithLoop();

  it('a hand-made notification whose completed record comes later gains its outcome then', async () => {
    const { service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, n);
    expect(await outcomeOf(service, sessionId, loopId, n.command_id)).toBeNull();

    const record = exitedRecord(sessionId, loopId, n.command_id as string, 3);
    const { sequence } = await service.publishProcessLifecycle(sessionId, record);
    expect(await service.pendingNotifications(sessionId, loopId)).toEqual([
      expect.objectContaining({
        commandId: n.command_id,
        outcome: {
          eventId: record.event_id,
          kind: 'completed',
          sequence,
          hasExitCode: true,
          exitCode: 3,
          diagnostic: null,
          signal: null,
          processStartedAt: '2026-01-01T00:00:01Z',
          processFinishedAt: '2026-01-01T00:00:09Z',
        },
      }),
    ]);
  });

  it('a record journaled before its notification is the outcome as soon as the notification arrives', async () => {
    const { service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId, { state: 'failed', reason: 'failed' });
    const record = failedRecord(sessionId, loopId, n.command_id as string);
    await service.publishProcessLifecycle(sessionId, record);
    await service.notifyProcessCompletion(sessionId, n);
    expect(await outcomeOf(service, sessionId, loopId, n.command_id)).toEqual({
      eventId: record.event_id,
      kind: 'completed',
      sequence: 1,
      hasExitCode: false,
      exitCode: null,
      diagnostic: 'command not found',
      signal: null,
      processStartedAt: null,
      processFinishedAt: '2026-01-01T00:00:00.5Z',
    });
  });

  it('exit 0, exit 3 and a lost run each show their own outcome; a record without command_id links nothing', async () => {
    const { service, sessionId, loopId } = t;
    const [passed, failing, lost, unlinked] = [1, 2, 3, 4].map(() => notification(sessionId, loopId));
    for (const n of [passed, failing, lost, unlinked]) await service.notifyProcessCompletion(sessionId, n);
    await service.publishProcessLifecycle(sessionId, exitedRecord(sessionId, loopId, passed!.command_id as string, 0));
    await service.publishProcessLifecycle(sessionId, exitedRecord(sessionId, loopId, failing!.command_id as string, 3));
    await service.publishProcessLifecycle(sessionId, lostRecord(sessionId, loopId, lost!.command_id as string));
    const { command_id: _none, ...withoutLink } = exitedRecord(sessionId, loopId, unlinked!.command_id as string, 0);
    await service.publishProcessLifecycle(sessionId, withoutLink);

    const outcomes = (await service.pendingNotifications(sessionId, loopId)).map((p) => p.outcome && [p.outcome.kind, p.outcome.exitCode]);
    expect(outcomes).toEqual([['completed', 0], ['completed', 3], ['lost', null], null]);
    const lostOutcome = await outcomeOf(service, sessionId, loopId, lost!.command_id);
    expect(lostOutcome).toMatchObject({ hasExitCode: false, diagnostic: 'supervisor restarted', processStartedAt: '2026-01-01T00:00:01Z' });
  });

  it('the first journaled record naming a command id stays its outcome; retries and later records change nothing', async () => {
    const { service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    const first = exitedRecord(sessionId, loopId, n.command_id as string, 3);
    await service.publishProcessLifecycle(sessionId, first);
    await service.publishProcessLifecycle(sessionId, { ...first });
    await service.publishProcessLifecycle(sessionId, exitedRecord(sessionId, loopId, n.command_id as string, 0));
    await service.publishProcessLifecycle(sessionId, lostRecord(sessionId, loopId, n.command_id as string));
    await service.notifyProcessCompletion(sessionId, n);
    expect(await outcomeOf(service, sessionId, loopId, n.command_id)).toMatchObject({ eventId: first.event_id, exitCode: 3 });
  });

  it('links by session, not by loop: a record of another session names nothing here', async () => {
    const { service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, n);
    const other = await openSessionWithLoop(service);
    await service.publishProcessLifecycle(other.sessionId, exitedRecord(other.sessionId, other.loopId, n.command_id as string, 1));
    expect(await outcomeOf(service, sessionId, loopId, n.command_id)).toBeNull();
    // A record of another loop of the same session does name it.
    const { loopId: sibling } = await service.openLoop(sessionId);
    await service.publishProcessLifecycle(sessionId, exitedRecord(sessionId, sibling, n.command_id as string, 2));
    expect(await outcomeOf(service, sessionId, loopId, n.command_id)).toMatchObject({ exitCode: 2 });
  });

  it('processOutcomes answers for any command id of the session, pending or consumed, in any case', async () => {
    const { service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    const record = exitedRecord(sessionId, loopId, n.command_id as string, 5);
    await service.notifyProcessCompletion(sessionId, n);
    await service.publishProcessLifecycle(sessionId, record);
    await service.consume(sessionId, loopId, n.command_id as string);
    const unknown = randomUUID();
    const outcomes = await service.processOutcomes(sessionId.toUpperCase(), [(n.command_id as string).toUpperCase(), unknown]);
    expect([...outcomes.keys()]).toEqual([n.command_id]);
    expect(outcomes.get(n.command_id as string)).toMatchObject({ eventId: record.event_id, exitCode: 5 });
    expect(await service.processOutcomes(sessionId, [])).toEqual(new Map());
  });

  it('a loop holding more notifications than one lookup takes still shows each outcome', async () => {
    await t.restart({ loopCapacity: 1200 });
    const { service, sessionId, loopId } = t;
    const sent = Array.from({ length: 1100 }, () => notification(sessionId, loopId));
    await Promise.all(sent.map((n) => service.notifyProcessCompletion(sessionId, n)));
    await Promise.all(
      sent
        .filter((_, i) => i % 2 === 0)
        .map((n, i) => service.publishProcessLifecycle(sessionId, exitedRecord(sessionId, loopId, n.command_id as string, i % 256))),
    );
    const pending = await service.pendingNotifications(sessionId, loopId);
    expect(pending).toHaveLength(1100);
    const byId = new Map(pending.map((p) => [p.commandId, p.outcome]));
    sent.forEach((n, i) =>
      expect([i, byId.get(n.command_id as string)?.exitCode ?? null]).toEqual([i, i % 2 === 0 ? (i / 2) % 256 : null]),
    );
  });

  it('the link is written with its record or not at all: a failed write journals neither, the retry both', async () => {
    const { service, sessionId, loopId, dataSource } = t;
    const n = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, n);
    await dataSource.query(
      `CREATE TRIGGER refuse_outcome BEFORE INSERT ON pn_process_outcomes BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`,
    );
    const record = exitedRecord(sessionId, loopId, n.command_id as string, 3);
    await expect(service.publishProcessLifecycle(sessionId, record)).rejects.toMatchObject({ code: 'journal_unavailable' });
    expect((await service.readJournal(sessionId)).map((entry) => entry.kind)).toEqual(['process_notification']);
    expect(await outcomeOf(service, sessionId, loopId, n.command_id)).toBeNull();

    await dataSource.query('DROP TRIGGER refuse_outcome');
    await expect(service.publishProcessLifecycle(sessionId, record)).resolves.toMatchObject({ appended: true });
    expect(await outcomeOf(service, sessionId, loopId, n.command_id)).toMatchObject({ exitCode: 3 });
  });

  it('keeps the outcome when retention drops the lifecycle record payload', async () => {
    const { service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, n);
    await service.publishProcessLifecycle(sessionId, exitedRecord(sessionId, loopId, n.command_id as string, 3));
    expect(await service.pruneJournal(new Date(Date.now() + 31 * DAY_MS))).toBe(1);
    expect((await service.readJournal(sessionId)).map((entry) => entry.payload === null)).toEqual([false, true]);
    expect(await outcomeOf(service, sessionId, loopId, n.command_id)).toMatchObject({ exitCode: 3 });
  });
});

describe('the outcome after a restart (SQLite file)', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('the outcome, and a link made before the notification, survive a restart', async () => {
    const databaseUrl = `sqlite:${dir.file('pn.db')}`;
    const first = await createTestApp({ databaseUrl });
    const { sessionId, loopId } = await openSessionWithLoop(first.service);
    const early = notification(sessionId, loopId);
    const late = notification(sessionId, loopId);
    await first.service.notifyProcessCompletion(sessionId, early);
    await first.service.publishProcessLifecycle(sessionId, exitedRecord(sessionId, loopId, early.command_id as string, 3));
    // Only the record of `late` before the restart; its notification comes after.
    const lateRecord = exitedRecord(sessionId, loopId, late.command_id as string, 0);
    await first.service.publishProcessLifecycle(sessionId, lateRecord);
    await first.close();

    const second = await createTestApp({ databaseUrl });
    try {
      expect(await outcomeOf(second.service, sessionId, loopId, early.command_id)).toMatchObject({ kind: 'completed', exitCode: 3 });
      await second.service.notifyProcessCompletion(sessionId, late);
      expect(await outcomeOf(second.service, sessionId, loopId, late.command_id)).toMatchObject({
        eventId: lateRecord.event_id,
        exitCode: 0,
      });
      // The identical retry of the record after the restart is still a duplicate and changes nothing.
      await expect(second.service.publishProcessLifecycle(sessionId, lateRecord)).resolves.toMatchObject({ appended: false });
    } finally {
      await second.close();
    }
  });
});
