import { NotificationNotFoundError, type PendingProcessNotification, type ProcessNotificationsService } from 'nestjs-process-notifications';
import { firstValueFrom, take, toArray } from 'rxjs';
import { createTestApp, notification } from '../support/test-app.js';
import { tempDir } from './support/temp-dir.js';

describe('consumption and restore after a restart (file database)', () => {
  let dir: ReturnType<typeof tempDir>;
  let databaseUrl: string;
  const opened: Array<{ close: () => Promise<void> }> = [];

  async function start(loopCapacity = 64): Promise<ProcessNotificationsService> {
    const app = await createTestApp({ databaseUrl, loopCapacity });
    opened.push(app);
    return app.service;
  }

  async function restart(loopCapacity = 64): Promise<ProcessNotificationsService> {
    await opened.pop()!.close();
    return start(loopCapacity);
  }

  const ids = (pending: PendingProcessNotification[]) => pending.map((p) => p.commandId);

  beforeEach(() => {
    dir = tempDir();
    databaseUrl = `sqlite:${dir.file('journal.db')}`;
  });

  afterEach(async () => {
    while (opened.length) await opened.pop()!.close();
    dir.remove();
  });

  it('starts on a brand-new database and again on the same, still empty one', async () => {
    let service = await start();
    const { sessionId } = await service.openSession();
    service = await restart();
    expect(await service.getSession(sessionId)).toEqual({ sessionId, state: 'open', closedAt: null, loops: [] });
  });

  it('restores exactly the unconsumed notifications, in journal order; consumed ones never come back', async () => {
    let service = await start();
    const { sessionId } = await service.openSession();
    const { loopId } = await service.openLoop(sessionId);
    const sent = Array.from({ length: 6 }, (_, i) => notification(sessionId, loopId, { process_handle: `proc-${i}` }));
    for (const n of sent) await service.notifyProcessCompletion(n.session_id as string, n);
    const consumedIds = [sent[1]!.command_id, sent[4]!.command_id] as string[];
    for (const id of consumedIds) await expect(service.consume(sessionId, loopId, id)).resolves.toMatchObject({ consumed: true });
    const expected = sent.map((n) => n.command_id).filter((id) => !consumedIds.includes(id as string));
    expect(ids(await service.pendingNotifications(sessionId, loopId))).toEqual(expected);

    service = await restart();
    const restored = await service.pendingNotifications(sessionId, loopId);
    expect(ids(restored)).toEqual(expected);
    expect(restored[0]).toMatchObject({ sessionId, loopId, processHandle: 'proc-0', state: 'exited', reason: 'exited' });
    expect(await service.getLoop(sessionId, loopId)).toMatchObject({ state: 'running', engine: 'native', pending: 4 });

    // A late retry of a consumed notification is a duplicate and is not put back.
    await expect(service.notifyProcessCompletion(sent[1].session_id as string, sent[1])).resolves.toMatchObject({
      disposition: 'duplicate',
      appended: false,
    });
    // A retry of a restored one is a duplicate too, and writes nothing.
    await expect(service.notifyProcessCompletion(sent[0].session_id as string, sent[0])).resolves.toMatchObject({
      disposition: 'duplicate',
      appended: false,
    });
    expect(ids(await service.pendingNotifications(sessionId, loopId))).toEqual(expected);
    const journal = await service.readJournal(sessionId, 0, 1000);
    expect(journal.filter((r) => r.kind === 'process_notification')).toHaveLength(6);
    expect(journal.filter((r) => r.kind === 'process_notification_consumed').map((r) => r.causeCommandId)).toEqual(consumedIds);
  });

  it('restores everything journaled, even past capacity, and keeps stopped loops stopped with their pending sets', async () => {
    let service = await start(2);
    const { sessionId } = await service.openSession();
    const { loopId } = await service.openLoop(sessionId);
    const stoppedLoop = await service.openLoop(sessionId);
    const sent = Array.from({ length: 3 }, () => notification(sessionId, loopId));
    await service.notifyProcessCompletion(sent[0].session_id as string, sent[0]);
    await service.notifyProcessCompletion(sent[1].session_id as string, sent[1]);
    // Journaled, then refused by the full set: the journal record stays authoritative.
    await expect(service.notifyProcessCompletion(sent[2].session_id as string, sent[2])).rejects.toMatchObject({
      code: 'delivery_stopped',
      stopCause: 'inbox_full',
    });
    const heldByStopped = notification(sessionId, stoppedLoop.loopId);
    await service.notifyProcessCompletion(heldByStopped.session_id as string, heldByStopped);
    await service.stopLoop(sessionId, stoppedLoop.loopId);

    service = await restart(2);
    expect(ids(await service.pendingNotifications(sessionId, loopId))).toEqual(sent.map((n) => n.command_id));
    // Stopped stays stopped, and keeps what it had accepted: a retry of that is a duplicate.
    expect(await service.getLoop(sessionId, stoppedLoop.loopId)).toMatchObject({ state: 'stopped', pending: 1 });
    await expect(service.notifyProcessCompletion(heldByStopped.session_id as string, heldByStopped)).resolves.toMatchObject({
      disposition: 'duplicate',
      appended: false,
    });
    await expect(service.notifyProcessCompletion(sessionId, notification(sessionId, stoppedLoop.loopId))).rejects.toMatchObject({
      code: 'delivery_stopped',
      stopCause: 'loop_stopped',
    });
    // The retry the supervisor makes after `stopped` now finds it delivered.
    await expect(service.notifyProcessCompletion(sent[2].session_id as string, sent[2])).resolves.toMatchObject({
      disposition: 'duplicate',
      appended: false,
    });
  });

  it('gives the same answers after a restart: what a stopped loop refused stays refused, what it held stays held', async () => {
    let service = await start();
    const { sessionId } = await service.openSession();
    const { loopId } = await service.openLoop(sessionId);
    const held = notification(sessionId, loopId);
    const consumedAfterStop = notification(sessionId, loopId);
    await service.notifyProcessCompletion(held.session_id as string, held);
    await service.notifyProcessCompletion(consumedAfterStop.session_id as string, consumedAfterStop);
    await service.stopLoop(sessionId, loopId);
    const refused = notification(sessionId, loopId);
    const stopped = { code: 'delivery_stopped', stopCause: 'loop_stopped' };
    await expect(service.notifyProcessCompletion(refused.session_id as string, refused)).rejects.toMatchObject({
      ...stopped,
      appended: true,
    });
    await expect(service.consume(sessionId, loopId, consumedAfterStop.command_id as string)).resolves.toMatchObject({ consumed: true });

    for (let round = 0; round < 2; round++) {
      // The refused notification is journaled but was never the loop's: its identical retry is
      // refused again, not turned into a duplicate by the restore.
      await expect(service.notifyProcessCompletion(refused.session_id as string, refused)).rejects.toMatchObject({
        ...stopped,
        appended: false,
      });
      await expect(service.notifyProcessCompletion(held.session_id as string, held)).resolves.toMatchObject({ disposition: 'duplicate' });
      await expect(service.notifyProcessCompletion(consumedAfterStop.session_id as string, consumedAfterStop)).resolves.toMatchObject({
        disposition: 'duplicate',
      });
      expect(ids(await service.pendingNotifications(sessionId, loopId))).toEqual([held.command_id]);
      expect(await service.getLoop(sessionId, loopId)).toMatchObject({ state: 'stopped', pending: 1 });
      service = await restart();
    }
    await expect(service.consume(sessionId, loopId, held.command_id as string)).resolves.toMatchObject({ consumed: true });
  });

  it('consumes once: a second consume reports it, an unknown id is not found', async () => {
    const service = await start();
    const { sessionId } = await service.openSession();
    const { loopId } = await service.openLoop(sessionId);
    const n = notification(sessionId, loopId);
    const { sequence } = await service.notifyProcessCompletion(n.session_id as string, n);
    const first = await service.consume(sessionId, loopId, n.command_id as string);
    expect(first).toEqual({ consumed: true, sequence: sequence + 1 });
    await expect(service.consume(sessionId, loopId, n.command_id as string)).resolves.toEqual({
      consumed: false,
      sequence: first.sequence,
    });
    await expect(service.consume(sessionId, loopId, notification(sessionId, loopId).command_id as string)).rejects.toBeInstanceOf(
      NotificationNotFoundError,
    );
    expect(await service.pendingNotifications(sessionId, loopId)).toEqual([]);
    // Consuming freed the slot, and the journal has exactly one consumed record.
    const journal = await service.readJournal(sessionId);
    expect(journal.map((r) => r.kind)).toEqual(['process_notification', 'process_notification_consumed']);
  });

  it('publishes accepted notifications so a loop need not poll', async () => {
    const service = await start();
    const { sessionId } = await service.openSession();
    const { loopId } = await service.openLoop(sessionId);
    const accepted = firstValueFrom(service.accepted$.pipe(take(2), toArray()));
    const a = notification(sessionId, loopId);
    const b = notification(sessionId, loopId);
    await service.notifyProcessCompletion(a.session_id as string, a);
    await service.notifyProcessCompletion(a.session_id as string, a); // duplicate: not announced again
    await service.notifyProcessCompletion(b.session_id as string, b);
    expect((await accepted).map((p) => p.commandId)).toEqual([a.command_id, b.command_id]);
  });
});
