import { DeliveryStoppedError } from 'nestjs-process-notifications';
import { EventBus } from '@nestjs/cqrs';
import { firstValueFrom } from 'rxjs';
import { createTestApp, notification } from '../support/test-app.js';
import { tempDir } from './support/temp-dir.js';

describe('a delivery in flight while the module shuts down', () => {
  const dir = tempDir();
  afterAll(() => dir.remove());

  it('answers stopped instead of hanging, and the restart delivers it', async () => {
    const databaseUrl = `sqlite:${dir.file('journal.db')}`;
    const first = await createTestApp({ databaseUrl });
    const { sessionId } = await first.service.openSession();
    const { loopId } = await first.service.openLoop(sessionId);

    // Shutdown has begun: the CQRS event bus has already unsubscribed its sagas.
    first.moduleRef.get(EventBus).onModuleDestroy();
    const n = notification(sessionId, loopId);
    const journaled = firstValueFrom(first.service.records$);
    const delivery = first.service.notifyProcessCompletion(n.session_id as string, n);
    await journaled;
    await first.close();
    const error = await delivery.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryStoppedError);
    expect(error).toMatchObject({ stopCause: 'loop_stopped', appended: true });

    const second = await createTestApp({ databaseUrl });
    try {
      expect((await second.service.pendingNotifications(sessionId, loopId)).map((p) => p.commandId)).toEqual([n.command_id]);
      // The supervisor retries after `stopped`: a duplicate, nothing written.
      await expect(second.service.notifyProcessCompletion(n.session_id as string, n)).resolves.toMatchObject({
        disposition: 'duplicate',
        appended: false,
      });
    } finally {
      await second.close();
    }
  });
});
