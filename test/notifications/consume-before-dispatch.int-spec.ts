import type { ProcessNotificationsService } from 'nestjs-process-notifications';
import { inFreshSchema } from '../support/postgres.js';
import { createTestApp, notification, openSessionWithLoop } from '../support/test-app.js';

// Issue 37, the PostgreSQL race made deterministic: a consume that reaches the owner after the
// notification's record committed (readers see it, a stream may have given it to the loop) and
// before the dispatch put it in the pending set. `records$` emits a record once its transaction
// has committed and before the caller continues to dispatch: a consume issued right there is that
// consume. It answered 404 ("never accepted"), and the dispatch then put the notification in the
// set, where the loop, which had it already, would never take it.
async function consumeInTheWindow(service: ProcessNotificationsService): Promise<void> {
  const { sessionId, loopId } = await openSessionWithLoop(service);
  const sent = notification(sessionId, loopId);
  let consuming: Promise<unknown> | undefined;
  const watching = service.records$.subscribe((record) => {
    if (record.kind === 'process_notification' && record.idempotencyId === sent.command_id) {
      consuming = service.consume(sessionId, loopId, String(sent.command_id)).catch((error: unknown) => error);
    }
  });
  const delivery = await service.notifyProcessCompletion(sessionId, sent);
  watching.unsubscribe();
  expect(consuming).toBeDefined();
  await expect(consuming).resolves.toMatchObject({ consumed: true });
  // The first delivery was accepted (the loop was given it and is done with it) ...
  expect(delivery).toMatchObject({ disposition: 'accepted', appended: true });
  // ... and it is not pending: nothing is left for a loop that already had it.
  expect(await service.pendingNotifications(sessionId, loopId)).toEqual([]);
  // The supervisor's retry: duplicate, and still not put back.
  await expect(service.notifyProcessCompletion(sessionId, sent)).resolves.toMatchObject({ disposition: 'duplicate' });
  expect(await service.pendingNotifications(sessionId, loopId)).toEqual([]);
  await expect(service.consume(sessionId, loopId, String(sent.command_id))).resolves.toMatchObject({ consumed: false });
}

describe('a consume between the commit of a notification and its dispatch', () => {
  it('on SQLite', async () => {
    const app = await createTestApp();
    try {
      await consumeInTheWindow(app.service);
    } finally {
      await app.close();
    }
  });

  it('on PostgreSQL', async () => {
    await inFreshSchema(async (databaseUrl) => {
      const app = await createTestApp({ databaseUrl });
      try {
        await consumeInTheWindow(app.service);
      } finally {
        await app.close();
      }
    });
  });
});
