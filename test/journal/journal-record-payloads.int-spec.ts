import { EventBus } from '@nestjs/cqrs';
import { ProcessStartedEvent, type ProcessNotificationsService } from 'nestjs-process-notifications';
import { createTestApp, lifecycleRecord, notification, openSessionWithLoop } from '../support/test-app.js';

// What the journal and the domain events carry (spec §6, §7): a record's payload is the metadata
// as sent, only the fields sent; a consumed record names the notification and loop it consumed.
describe('journal payloads', () => {
  let app: Awaited<ReturnType<typeof createTestApp>>;
  let service: ProcessNotificationsService;
  let sessionId: string;
  let loopId: string;

  beforeEach(async () => {
    app = await createTestApp();
    service = app.service;
    ({ sessionId, loopId } = await openSessionWithLoop(service));
  });
  afterEach(() => app.close());

  it('a consumed record carries the command id and loop id of what was consumed', async () => {
    const n = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, n);
    await service.consume(sessionId, loopId, n.command_id as string);
    const consumed = (await service.readJournal(sessionId, 0, 10)).filter((entry) => entry.kind === 'process_notification_consumed');
    expect(consumed).toEqual([
      expect.objectContaining({ causeCommandId: n.command_id, payload: { command_id: n.command_id, loop_id: loopId } }),
    ]);
  });

  it('a lifecycle event carries exactly the fields sent, none of the optional ones left out', async () => {
    const record = lifecycleRecord(sessionId, loopId);
    const events: ProcessStartedEvent[] = [];
    const subscription = app.moduleRef.get(EventBus, { strict: false }).subscribe((event) => {
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
