import { createTestApp, notification } from './support/test-app.js';

describe('smoke', () => {
  it('delivers', async () => {
    const { service, close } = await createTestApp({ loopCapacity: 2 });
    const { sessionId } = await service.openSession();
    const loop = await service.openLoop(sessionId);
    const n = notification(sessionId, loop.loopId);
    await expect(service.deliverProcessCompletion(n)).resolves.toMatchObject({ disposition: 'accepted', appended: true, sequence: 1 });
    await expect(service.deliverProcessCompletion(n)).resolves.toMatchObject({ disposition: 'duplicate', appended: false, sequence: 1 });
    expect(service.pendingNotifications(sessionId, loop.loopId)).toHaveLength(1);
    await close();
  });
});
