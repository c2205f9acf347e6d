import { AdminQueries, DeliveryStoppedError } from 'nestjs-process-notifications';
import { notification, useSessionWithLoop } from '../support/test-app.js';
import { rejection } from '../support/rejection.js';

// A notification journaled for a loop but refused by it (inbox_full, or a stopped loop) is
// unconsumed all the same (spec section 12.1): an operator must be able to consume it, and the
// loop's unconsumed count must fall with it (issue 40, point 3).
describe('consuming a notification its loop refused', () => {
  const t = useSessionWithLoop({ loopCapacity: 1 });

  const unconsumedOf = async (loopId: string): Promise<number> => {
    const { items } = await t.moduleRef.get(AdminQueries).loops({ sessionId: t.sessionId });
    return items.find((loop) => loop.loopId === loopId)!.unconsumed;
  };

  it('consumes one refused as inbox_full: journaled consumed once, and a retry answers duplicate, not accepted', async () => {
    const { service, sessionId, loopId } = t;
    const first = notification(sessionId, loopId);
    await service.notifyProcessCompletion(sessionId, first);
    const refused = notification(sessionId, loopId);
    expect(await rejection(service.notifyProcessCompletion(sessionId, refused))).toMatchObject({ stopCause: 'inbox_full' });
    expect(await unconsumedOf(loopId)).toBe(2);

    const consumed = await service.consume(sessionId, loopId, refused.command_id as string);
    expect(consumed).toMatchObject({ consumed: true });
    await expect(service.consume(sessionId, loopId, refused.command_id as string)).resolves.toEqual({
      consumed: false,
      sequence: consumed.sequence,
    });
    expect(await unconsumedOf(loopId)).toBe(1);
    // The first one is still the only pending one; once it is consumed, a retry of the refused
    // one is not handed to the loop again.
    await service.consume(sessionId, loopId, first.command_id as string);
    await expect(service.notifyProcessCompletion(sessionId, refused)).resolves.toMatchObject({ disposition: 'duplicate' });
    expect(await service.pendingNotifications(sessionId, loopId)).toEqual([]);
  });

  it('consumes the work a stopped loop was left with', async () => {
    const { service, sessionId, loopId } = t;
    await service.stopLoop(sessionId, loopId);
    const refused = notification(sessionId, loopId);
    const error = await rejection(service.notifyProcessCompletion(sessionId, refused));
    expect(error).toBeInstanceOf(DeliveryStoppedError);
    expect(await unconsumedOf(loopId)).toBe(1);
    await expect(service.consume(sessionId, loopId, refused.command_id as string)).resolves.toMatchObject({ consumed: true });
    expect(await unconsumedOf(loopId)).toBe(0);
  });
});
