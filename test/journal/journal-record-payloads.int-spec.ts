import { EventBus } from '@nestjs/cqrs';
import { ProcessStartedEvent } from 'nestjs-process-notifications';
import { lifecycleRecord, notification, useSessionWithLoop } from '../support/test-app.js';

// What the journal and the domain events carry (spec §6, §7): a record's payload is the metadata
// as sent, only the fields sent; a consumed record names the notification and loop it consumed.
describe('journal payloads', () => {
  const t = useSessionWithLoop();

  it('a consumed record carries the command id and loop id of what was consumed', async () => {
    const { service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, n);
    await service.consume(sessionId, loopId, n.command_id as string);
    const consumed = (await service.readJournal(sessionId, 0, 10)).filter((entry) => entry.kind === 'process_notification_consumed');
    expect(consumed).toEqual([
      expect.objectContaining({ causeCommandId: n.command_id, payload: { command_id: n.command_id, loop_id: loopId } }),
    ]);
  });

  it('a lifecycle event carries exactly the fields sent, none of the optional ones left out', async () => {
    const { moduleRef, service, sessionId, loopId } = t;
    const record = lifecycleRecord(sessionId, loopId);
    const events: ProcessStartedEvent[] = [];
    const subscription = moduleRef.get(EventBus, { strict: false }).subscribe((event) => {
      if (event instanceof ProcessStartedEvent) events.push(event);
    });
    await service.publishProcessLifecycle(sessionId, record);
    subscription.unsubscribe();
    expect(events).toHaveLength(1);
    expect(Object.keys(events[0]!.record)).toEqual([
      'event_id',
      'kind',
      'session_id',
      'loop_id',
      'process_handle',
      'origin_execution_id',
      'state',
      'process_created_at',
      'process_started_at',
    ]);
    expect(events[0]!.record).toEqual(record);
  });
});
