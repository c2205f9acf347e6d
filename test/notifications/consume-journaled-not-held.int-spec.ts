import { DeliveryStoppedError, NotificationNotFoundError } from 'nestjs-process-notifications';
import { notification, useSessionWithLoop } from '../support/test-app.js';
import { rejection } from '../support/rejection.js';

// Issue 37: a loop may be given a notification its pending set does not hold (yet): one refused
// `inbox_full` is journaled and the loop's work, and completions() gives it to the loop. Consuming
// it answered 404, and the supervisor's retry then put it in the set, where nobody would take it.
describe('consuming a notification journaled for the loop but not in its pending set', () => {
  const t = useSessionWithLoop({ loopCapacity: 1 });

  it('consumes it once; the retry that follows answers duplicate and does not put it back', async () => {
    const { service, sessionId, loopId } = t;
    const first = notification(sessionId, loopId);
    const refused = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, first);
    const error = await rejection(service.notifyProcessCompletion(sessionId, refused));
    expect(error).toBeInstanceOf(DeliveryStoppedError);
    expect(error).toMatchObject({ stopCause: 'inbox_full' });

    const consumed = await service.consume(sessionId, loopId, String(refused.command_id));
    expect(consumed).toMatchObject({ consumed: true });
    await expect(service.consume(sessionId, loopId, String(refused.command_id))).resolves.toEqual({
      consumed: false,
      sequence: consumed.sequence,
    });
    // The supervisor's retry, once the loop has room: journaled once, consumed, so duplicate.
    await service.consume(sessionId, loopId, String(first.command_id));
    await expect(service.notifyProcessCompletion(sessionId, refused)).resolves.toMatchObject({ disposition: 'duplicate' });
    expect(await service.pendingNotifications(sessionId, loopId)).toEqual([]);
  });

  it('still answers not_found for an id journaled for another loop of the session, or never journaled', async () => {
    const { service, sessionId, loopId } = t;
    const other = await service.openLoop(sessionId);
    const theirs = notification(sessionId, other.loopId);
    await service.notifyProcessCompletion(sessionId, theirs);
    await expect(service.consume(sessionId, loopId, String(theirs.command_id))).rejects.toBeInstanceOf(NotificationNotFoundError);
    const never = notification(sessionId, loopId);
    await expect(service.consume(sessionId, loopId, String(never.command_id))).rejects.toBeInstanceOf(NotificationNotFoundError);
    expect(await service.pendingNotifications(sessionId, other.loopId)).toHaveLength(1);
  });
});
