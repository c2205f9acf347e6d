import { inFreshSchema } from '../support/postgres.js';
import { createTestApp } from '../support/test-app.js';

// What the server's forwarding middleware asks before it looks a session's owner up.
describe('ProcessNotificationsService.sharesDatabase', () => {
  it('is false on SQLite, where this process owns every session', async () => {
    const app = await createTestApp();
    try {
      expect(app.service.sharesDatabase).toBe(false);
      const { sessionId } = await app.service.openSession();
      await expect(app.service.locateOwner(sessionId)).resolves.toMatchObject({ kind: 'self' });
    } finally {
      await app.close();
    }
  });

  it('is true on PostgreSQL, where other nodes may own sessions', async () => {
    await inFreshSchema(async (databaseUrl) => {
      const app = await createTestApp({ databaseUrl });
      try {
        expect(app.service.sharesDatabase).toBe(true);
      } finally {
        await app.close();
      }
    });
  });
});
