import { EventBus } from '@nestjs/cqrs';
import type Database from 'better-sqlite3';
import { JournalUnavailableError } from 'nestjs-process-notifications';
import { ProcessNotificationDispatchRequestedEvent } from '../../libs/process-notifications/src/events/process-notification-dispatch-requested.event.js';
import { rejection } from '../support/rejection.js';
import { notification, useSessionWithLoop } from '../support/test-app.js';

// A retry of a notification its loop no longer holds makes the dispatch read the journal (was it
// consumed?). When that read fails the caller must get the failure (journal_unavailable, so the
// supervisor retries) instead of waiting for an answer that never comes.
describe('a retry whose dispatch cannot read the journal', () => {
  const t = useSessionWithLoop();

  it('answers journal_unavailable; once the journal reads again the retry answers duplicate', async () => {
    const { moduleRef, service, dataSource, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, n);
    await service.consume(sessionId, loopId, n.command_id as string);

    // The store goes away right after the retry's append, before the dispatch reads it
    // (better-sqlite3 is synchronous, so nothing else runs in between).
    const db = dataSource.driver as unknown as { databaseConnection: Database.Database };
    let broken = false;
    const subscription = moduleRef.get(EventBus, { strict: false }).subscribe((event) => {
      if (event instanceof ProcessNotificationDispatchRequestedEvent && !broken) {
        broken = true;
        db.databaseConnection.exec('ALTER TABLE pn_journal RENAME TO pn_journal_away');
      }
    });
    const error = await rejection(service.notifyProcessCompletion(sessionId, { ...n }));
    subscription.unsubscribe();
    expect(broken).toBe(true);
    expect(error).toBeInstanceOf(JournalUnavailableError);

    db.databaseConnection.exec('ALTER TABLE pn_journal_away RENAME TO pn_journal');
    await expect(service.notifyProcessCompletion(sessionId, { ...n })).resolves.toMatchObject({
      disposition: 'duplicate',
      appended: false,
    });
    expect(await service.pendingNotifications(sessionId, loopId)).toEqual([]);
  });
});
