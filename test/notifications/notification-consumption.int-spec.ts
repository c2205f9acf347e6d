import {
  JournalUnavailableError,
  NotificationNotFoundError,
  ValidationError,
  ProcessNotificationConsumedEvent,
} from 'nestjs-process-notifications';
import { notification, useSessionWithLoop } from '../support/test-app.js';
import { rejection } from '../support/rejection.js';
import { journalCounts, recordEvents } from './support/journal-probe.js';

describe('consuming a pending notification (spec sections 4 and 8)', () => {
  const t = useSessionWithLoop();

  async function deliver(targetLoop = t.loopId): Promise<{ commandId: string; sequence: number }> {
    const n = notification(t.sessionId, targetLoop);
    const { sequence } = await t.service.notifyProcessCompletion(n.session_id as string, n);
    return { commandId: String(n.command_id), sequence };
  }

  const pendingIds = async (loop = t.loopId) => (await t.service.pendingNotifications(t.sessionId, loop)).map((p) => p.commandId);

  describe('when the journal refuses the consumed record', () => {
    // SQLite's query_only makes every write of the module's connection fail, as a full disk would.
    const refuseWrites = (on: boolean) => t.dataSource.query(`PRAGMA query_only = ${on ? 'ON' : 'OFF'}`);

    it('answers journal_unavailable and keeps the notification pending; once writes work it consumes once', async () => {
      const { moduleRef, service, dataSource, sessionId, loopId } = t;
      const { commandId, sequence } = await deliver();
      const other = await deliver();
      const counts = await journalCounts(dataSource);
      const recorder = recordEvents(moduleRef);

      await refuseWrites(true);
      const error = await rejection(service.consume(sessionId, loopId, commandId));
      expect(error).toBeInstanceOf(JournalUnavailableError);
      expect(error).toMatchObject({ code: 'journal_unavailable' });
      // A retry while the journal still refuses fails the same way: not "not found", not consumed:false.
      await expect(service.consume(sessionId, loopId, commandId)).rejects.toBeInstanceOf(JournalUnavailableError);
      await refuseWrites(false);

      // Nothing was written, nothing announced, and memory still holds it where it was.
      expect(await journalCounts(dataSource)).toEqual(counts);
      expect(recorder.events.filter((event) => event instanceof ProcessNotificationConsumedEvent)).toEqual([]);
      expect(await pendingIds()).toEqual([commandId, other.commandId]);
      expect(await service.getLoop(sessionId, loopId)).toMatchObject({ pending: 2 });

      const consumed = await service.consume(sessionId, loopId, commandId);
      expect(consumed).toEqual({ consumed: true, sequence: other.sequence + 1 });
      expect(consumed.sequence).toBeGreaterThan(sequence);
      await expect(service.consume(sessionId, loopId, commandId)).resolves.toEqual({ consumed: false, sequence: consumed.sequence });
      recorder.stop();
      expect(await pendingIds()).toEqual([other.commandId]);
      expect(recorder.events.filter((event) => event instanceof ProcessNotificationConsumedEvent)).toHaveLength(1);
      const journal = await service.readJournal(sessionId, counts.rows);
      expect(journal).toEqual([
        expect.objectContaining({ sequence: consumed.sequence, kind: 'process_notification_consumed', causeCommandId: commandId, loopId }),
      ]);
    });
  });

  it('consumes once when two consumers take the same notification at once: one consumed:true, one event', async () => {
    const { moduleRef, service, sessionId, loopId } = t;
    const { commandId } = await deliver();
    const recorder = recordEvents(moduleRef);
    const answers = await Promise.all([service.consume(sessionId, loopId, commandId), service.consume(sessionId, loopId, commandId)]);
    recorder.stop();
    const sequence = answers[0].sequence;
    expect(answers.map((answer) => answer.consumed).sort()).toEqual([false, true]);
    expect(answers).toEqual([expect.objectContaining({ sequence }), expect.objectContaining({ sequence })]);
    expect(recorder.events.filter((event) => event instanceof ProcessNotificationConsumedEvent)).toEqual([
      expect.objectContaining({ sessionId, loopId, commandId, sequence }),
    ]);
    expect(await pendingIds()).toEqual([]);
  });

  it('refuses a command id that is not a canonical UUID, naming the command_id field', async () => {
    const { service, sessionId, loopId } = t;
    const error = await rejection(service.consume(sessionId, loopId, 'not-a-uuid'));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'invalid_field', field: 'command_id', message: 'command_id must be a canonical, non-nil UUID' });
  });

  describe('through another loop of the same session', () => {
    let otherLoop: string;
    beforeEach(async () => {
      ({ loopId: otherLoop } = await t.service.openLoop(t.sessionId));
    });

    /** The not_found answer of §8: no notification of this loop was journaled under this id. */
    async function expectNotFound(loop: string, commandId: string): Promise<void> {
      const error = await rejection(t.service.consume(t.sessionId, loop, commandId));
      expect(error).toBeInstanceOf(NotificationNotFoundError);
      expect(error).toMatchObject({ code: 'not_found' });
    }

    it('answers not_found for a notification pending in its sibling, and leaves it pending there', async () => {
      const { service, dataSource, sessionId, loopId } = t;
      const { commandId } = await deliver();
      const counts = await journalCounts(dataSource);
      await expectNotFound(otherLoop, commandId);
      expect(await pendingIds()).toEqual([commandId]);
      expect(await journalCounts(dataSource)).toEqual(counts);
      // Its own loop still consumes it.
      await expect(service.consume(sessionId, loopId, commandId)).resolves.toMatchObject({ consumed: true });
    });

    it('answers not_found, not consumed:false, after the notification was consumed through its own loop', async () => {
      const { service, dataSource, sessionId, loopId } = t;
      const { commandId } = await deliver();
      const consumed = await service.consume(sessionId, loopId, commandId);
      const counts = await journalCounts(dataSource);
      await expectNotFound(otherLoop, commandId);
      expect(await journalCounts(dataSource)).toEqual(counts);
      // The owning loop still reports its own consumption.
      await expect(service.consume(sessionId, loopId, commandId)).resolves.toEqual({ consumed: false, sequence: consumed.sequence });
    });
  });
});
