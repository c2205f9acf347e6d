import { JournalUnavailableError, type JournalRecordView } from 'nestjs-process-notifications';
import { notification, useSessionWithLoop } from '../support/test-app.js';
import { recordEvents } from './support/journal-probe.js';

// Spec section 3, step 5: any append failure is returned and nothing is dispatched.
describe('append before dispatch: a journal failure dispatches nothing', () => {
  const t = useSessionWithLoop();

  async function expectUnavailableAndNothingDispatched(n: Record<string, unknown>): Promise<void> {
    const { moduleRef, service, sessionId, loopId } = t;
    const recorder = recordEvents(moduleRef);
    const committed: JournalRecordView[] = [];
    const subscription = service.records$.subscribe((record) => committed.push(record));
    const error: unknown = await service.notifyProcessCompletion(n.session_id as string, n).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    subscription.unsubscribe();
    recorder.stop();

    expect(error).toBeInstanceOf(JournalUnavailableError);
    expect(error).toMatchObject({ code: 'journal_unavailable' });
    expect((error as JournalUnavailableError).disposition).toBeUndefined();
    expect((error as JournalUnavailableError).cause).toBeDefined();
    expect(await service.pendingNotifications(sessionId, loopId)).toEqual([]);
    expect(await service.getLoop(sessionId, loopId)).toMatchObject({ pending: 0 });
    // No dispatch request, no accepted event, no committed record: nothing at all went out.
    expect(recorder.events).toEqual([]);
    expect(committed).toEqual([]);
  }

  it('rejects with JournalUnavailableError when the journal table is gone', async () => {
    const { dataSource, sessionId, loopId } = t;
    await dataSource.query('DROP TABLE pn_journal');
    await expectUnavailableAndNothingDispatched(notification(sessionId, loopId));
  });

  it('rejects with JournalUnavailableError when the database connection is closed', async () => {
    const { dataSource, sessionId, loopId } = t;
    await dataSource.destroy();
    await expectUnavailableAndNothingDispatched(notification(sessionId, loopId));
  });

  it('delivers the same notification on a retry once the journal is back', async () => {
    const { service, dataSource, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    await dataSource.query('ALTER TABLE pn_journal RENAME TO pn_journal_away');
    await expectUnavailableAndNothingDispatched(n);
    await dataSource.query('ALTER TABLE pn_journal_away RENAME TO pn_journal');

    await expect(service.notifyProcessCompletion(n.session_id as string, n)).resolves.toMatchObject({
      disposition: 'accepted',
      appended: true,
    });
    expect((await service.pendingNotifications(sessionId, loopId)).map((p) => p.commandId)).toEqual([n.command_id]);
    expect(await service.readJournal(sessionId)).toHaveLength(1);
  });
});
