import {
  DeliveryStoppedError,
  IdempotencyCollisionError,
  LoopNotFoundError,
  OwnerMismatchError,
  ProcessNotificationAcceptedEvent,
  SessionNotFoundError,
  UnsupportedEngineError,
} from 'nestjs-process-notifications';
import { randomUUID } from 'node:crypto';
import { notification, useSessionWithLoop } from '../support/test-app.js';
import { rejection } from '../support/rejection.js';
import { journalCounts, recordEvents } from './support/journal-probe.js';

describe('delivering a completion notification (spec sections 3 and 4)', () => {
  const t = useSessionWithLoop({ loopCapacity: 64 });

  const pendingIds = async () => (await t.service.pendingNotifications(t.sessionId, t.loopId)).map((p) => p.commandId);

  it('accepts a new notification: journaled, in the pending set, one accepted event', async () => {
    const { moduleRef, service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId, { state: 'killed', reason: 'runner_shutdown' });
    const recorder = recordEvents(moduleRef);
    const delivery = await service.notifyProcessCompletion(n.session_id as string, n);
    recorder.stop();
    expect(delivery).toEqual({ disposition: 'accepted', commandId: n.command_id, sequence: expect.any(Number), appended: true });
    expect(await service.pendingNotifications(sessionId, loopId)).toEqual([
      {
        commandId: n.command_id,
        sessionId,
        loopId,
        processHandle: 'proc-1',
        state: 'killed',
        reason: 'runner_shutdown',
        sequence: delivery.sequence,
        outcome: null,
      },
    ]);
    const journal = await service.readJournal(sessionId);
    expect(journal).toEqual([
      expect.objectContaining({
        sequence: delivery.sequence,
        kind: 'process_notification',
        loopId,
        idempotencyId: n.command_id,
        causeCommandId: null,
        payload: n,
      }),
    ]);
    // The payload is the canonical six fields in a fixed order.
    expect(Object.keys(journal[0]!.payload!)).toEqual(['command_id', 'session_id', 'loop_id', 'process_handle', 'state', 'reason']);
    const accepted = recorder.events.filter((e) => e instanceof ProcessNotificationAcceptedEvent);
    const { outcome: _outcome, ...held } = (await service.pendingNotifications(sessionId, loopId))[0]!;
    expect(accepted).toEqual([new ProcessNotificationAcceptedEvent(held)]);
  });

  it('resolves notifyProcessCompletion with the delivery on success and rejects it with the typed error otherwise', async () => {
    const { service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    await expect(service.notifyProcessCompletion(sessionId, n)).resolves.toEqual({
      disposition: 'accepted',
      commandId: n.command_id,
      sequence: 1,
      appended: true,
    });
    await expect(service.notifyProcessCompletion(sessionId, notification(sessionId, randomUUID()))).rejects.toBeInstanceOf(
      LoopNotFoundError,
    );
  });

  describe('live duplicate', () => {
    it('answers duplicate to an identical second call: appended false, same sequence, nothing new', async () => {
      const { moduleRef, service, dataSource, sessionId, loopId } = t;
      const n = notification(sessionId, loopId);
      const first = await service.notifyProcessCompletion(n.session_id as string, n);
      const counts = await journalCounts(dataSource);
      const recorder = recordEvents(moduleRef);
      const second = await service.notifyProcessCompletion(n.session_id as string, { ...n });
      recorder.stop();
      expect(second).toEqual({ disposition: 'duplicate', commandId: n.command_id, sequence: first.sequence, appended: false });
      expect(await journalCounts(dataSource)).toEqual(counts);
      expect(recorder.events.filter((e) => e instanceof ProcessNotificationAcceptedEvent)).toEqual([]);
      expect(await pendingIds()).toEqual([n.command_id]);
    });
  });

  describe('idempotency collision', () => {
    it.each([
      ['another handle', { process_handle: 'proc-2' }],
      ['another state and reason', { state: 'killed', reason: 'killed' }],
      ['another reason', { state: 'terminated', reason: 'output_limit' }],
    ])('rejects the same command_id with %s: collision, original sequence, nothing dispatched', async (_label, overrides) => {
      const { moduleRef, service, dataSource, sessionId, loopId } = t;
      const n = notification(sessionId, loopId, { state: 'terminated', reason: 'terminated' });
      const first = await service.notifyProcessCompletion(n.session_id as string, n);
      const counts = await journalCounts(dataSource);
      const pendingBefore = await service.pendingNotifications(sessionId, loopId);
      const recorder = recordEvents(moduleRef);

      const error = await rejection(service.notifyProcessCompletion(n.session_id as string, { ...n, ...overrides }));
      recorder.stop();
      expect(error).toBeInstanceOf(IdempotencyCollisionError);
      expect(error).toMatchObject({
        code: 'idempotency_collision',
        disposition: 'collision',
        idempotencyId: n.command_id,
        sequence: first.sequence,
      });
      expect(await service.pendingNotifications(sessionId, loopId)).toEqual(pendingBefore);
      expect(await journalCounts(dataSource)).toEqual(counts);
      // Nothing was dispatched: no event of any kind went out.
      expect(recorder.events).toEqual([]);
    });

    it('is a collision when the same command_id names another loop of the session; neither loop changes', async () => {
      const { service, sessionId, loopId } = t;
      const other = await service.openLoop(sessionId);
      const n = notification(sessionId, loopId);
      const first = await service.notifyProcessCompletion(n.session_id as string, n);
      await expect(service.notifyProcessCompletion(n.session_id as string, { ...n, loop_id: other.loopId })).rejects.toMatchObject({
        disposition: 'collision',
        sequence: first.sequence,
      });
      expect(await service.pendingNotifications(sessionId, other.loopId)).toEqual([]);
      expect(await pendingIds()).toEqual([n.command_id]);
    });

    it('is still a collision after the first delivery was stopped (never dispatched)', async () => {
      const { service, sessionId, loopId } = t;
      await service.stopLoop(sessionId, loopId);
      const n = notification(sessionId, loopId);
      await expect(service.notifyProcessCompletion(n.session_id as string, n)).rejects.toBeInstanceOf(DeliveryStoppedError);
      await expect(service.notifyProcessCompletion(n.session_id as string, { ...n, process_handle: 'changed' })).rejects.toBeInstanceOf(
        IdempotencyCollisionError,
      );
    });

    it('keys idempotency per session: the same command_id in another session is its own notification', async () => {
      const { service, sessionId, loopId } = t;
      const n = notification(sessionId, loopId);
      await service.notifyProcessCompletion(n.session_id as string, n);
      const { sessionId: otherSession } = await service.openSession();
      const { loopId: otherLoop } = await service.openLoop(otherSession);
      await expect(
        service.notifyProcessCompletion(otherSession, { ...n, session_id: otherSession, loop_id: otherLoop }),
      ).resolves.toMatchObject({ disposition: 'accepted', appended: true });
    });
  });

  describe('inbox full', () => {
    it('answers stopped (inbox_full) at capacity, again on retry, and the retry writes nothing', async () => {
      const capacity = 3;
      await t.restart({ loopCapacity: capacity });
      const { moduleRef, service, dataSource, sessionId, loopId } = t;
      const filled = Array.from({ length: capacity }, () => notification(sessionId, loopId));
      for (const n of filled)
        await expect(service.notifyProcessCompletion(n.session_id as string, n)).resolves.toMatchObject({ disposition: 'accepted' });

      const overflow = notification(sessionId, loopId);
      const recorder = recordEvents(moduleRef);
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = await rejection(service.notifyProcessCompletion(overflow.session_id as string, overflow));
        expect(error).toBeInstanceOf(DeliveryStoppedError);
        expect(error).toMatchObject({ code: 'delivery_stopped', disposition: 'stopped', stopCause: 'inbox_full', loopId });
      }
      recorder.stop();
      expect(await journalCounts(dataSource)).toEqual({ rows: capacity + 1, distinctIds: capacity + 1 });
      expect(await pendingIds()).toEqual(filled.map((n) => n.command_id));
      expect(recorder.events.filter((e) => e instanceof ProcessNotificationAcceptedEvent)).toEqual([]);
      // Already-held ids still answer duplicate when the set is full.
      await expect(service.notifyProcessCompletion(sessionId, filled[0]!)).resolves.toMatchObject({ disposition: 'duplicate' });
      expect(await service.getLoop(sessionId, loopId)).toMatchObject({ capacity, pending: capacity });
    });
  });

  describe('refusals before the journal', () => {
    async function expectNothingJournaled(run: () => Promise<unknown>): Promise<unknown> {
      const { moduleRef, dataSource } = t;
      const counts = await journalCounts(dataSource);
      const recorder = recordEvents(moduleRef);
      const error = await rejection(run());
      recorder.stop();
      expect(await journalCounts(dataSource)).toEqual(counts);
      expect(recorder.events).toEqual([]);
      return error;
    }

    it('refuses a foreign loop: unsupported engine, disposition stopped', async () => {
      const { service, sessionId } = t;
      const foreign = await service.openLoop(sessionId, { engine: 'foreign' });
      const error = await expectNothingJournaled(() => service.notifyProcessCompletion(sessionId, notification(sessionId, foreign.loopId)));
      expect(error).toBeInstanceOf(UnsupportedEngineError);
      expect(error).toMatchObject({ code: 'unsupported_engine', disposition: 'stopped', loopId: foreign.loopId });
    });

    it('refuses a notification for another session: owner mismatch with wanted and got', async () => {
      const { service, sessionId, loopId } = t;
      const { sessionId: caller } = await service.openSession();
      const error = await expectNothingJournaled(() => service.notifyProcessCompletion(caller, notification(sessionId, loopId)));
      expect(error).toBeInstanceOf(OwnerMismatchError);
      expect(error).toMatchObject({ code: 'owner_mismatch', wanted: caller, got: sessionId });
      expect((error as OwnerMismatchError).disposition).toBeUndefined();
    });

    it('checks the owner before the session exists, and compares it case-insensitively', async () => {
      const { service, sessionId, loopId } = t;
      const stranger = randomUUID();
      const error = await expectNothingJournaled(() => service.notifyProcessCompletion(sessionId, notification(stranger, loopId)));
      expect(error).toMatchObject({ code: 'owner_mismatch', wanted: sessionId, got: stranger });
      await expect(service.notifyProcessCompletion(sessionId.toUpperCase(), notification(sessionId, loopId))).resolves.toMatchObject({
        disposition: 'accepted',
      });
    });

    it('refuses an unknown loop: loop not found, disposition stopped', async () => {
      const { service, sessionId } = t;
      const missing = randomUUID();
      const error = await expectNothingJournaled(() => service.notifyProcessCompletion(sessionId, notification(sessionId, missing)));
      expect(error).toBeInstanceOf(LoopNotFoundError);
      expect(error).toMatchObject({ code: 'loop_not_found', disposition: 'stopped', loopId: missing, sessionId });
    });

    it('refuses a loop of another session as not found in this one', async () => {
      const { service, loopId } = t;
      const { sessionId: otherSession } = await service.openSession();
      const error = await expectNothingJournaled(() => service.notifyProcessCompletion(otherSession, notification(otherSession, loopId)));
      expect(error).toMatchObject({ code: 'loop_not_found', disposition: 'stopped' });
    });

    it('refuses an unknown session: session not found', async () => {
      const { service } = t;
      const unknown = randomUUID();
      const error = await expectNothingJournaled(() => service.notifyProcessCompletion(unknown, notification(unknown, randomUUID())));
      expect(error).toBeInstanceOf(SessionNotFoundError);
      expect(error).toMatchObject({ code: 'session_not_found', sessionId: unknown });
    });
  });

  describe('stopped loop', () => {
    it('journals the notification, then answers stopped (loop_stopped); a retry writes nothing new', async () => {
      const { moduleRef, service, dataSource, sessionId, loopId } = t;
      const held = notification(sessionId, loopId);
      await service.notifyProcessCompletion(held.session_id as string, held);
      await service.stopLoop(sessionId, loopId);
      const counts = await journalCounts(dataSource);
      const n = notification(sessionId, loopId);
      const recorder = recordEvents(moduleRef);

      const error = await rejection(service.notifyProcessCompletion(n.session_id as string, n));
      expect(error).toBeInstanceOf(DeliveryStoppedError);
      expect(error).toMatchObject({ disposition: 'stopped', stopCause: 'loop_stopped', loopId });
      expect(await journalCounts(dataSource)).toEqual({ rows: counts.rows + 1, distinctIds: counts.distinctIds + 1 });
      const [record] = await service.readJournal(sessionId, counts.rows);
      expect(record).toMatchObject({ idempotencyId: n.command_id, kind: 'process_notification' });

      await expect(service.notifyProcessCompletion(n.session_id as string, n)).rejects.toMatchObject({ stopCause: 'loop_stopped' });
      recorder.stop();
      expect(await journalCounts(dataSource)).toEqual({ rows: counts.rows + 1, distinctIds: counts.distinctIds + 1 });
      expect(recorder.events.filter((e) => e instanceof ProcessNotificationAcceptedEvent)).toEqual([]);
      expect(await pendingIds()).toEqual([held.command_id]);
      expect(await service.getLoop(sessionId, loopId)).toMatchObject({ state: 'stopped', pending: 1 });
    });

    it('answers loop_stopped, not inbox_full, when the pending set of the stopped loop is also full', async () => {
      await t.restart({ loopCapacity: 1 });
      const { service, sessionId, loopId } = t;
      const held = notification(sessionId, loopId);
      await service.notifyProcessCompletion(held.session_id as string, held);
      await service.stopLoop(sessionId, loopId);
      // inbox_full would tell the supervisor to retry a loop that will never take it.
      const error = await rejection(service.notifyProcessCompletion(sessionId, notification(sessionId, loopId)));
      expect(error).toBeInstanceOf(DeliveryStoppedError);
      expect(error).toMatchObject({ disposition: 'stopped', stopCause: 'loop_stopped', loopId });
      expect(await pendingIds()).toEqual([held.command_id]);
    });
  });
});
