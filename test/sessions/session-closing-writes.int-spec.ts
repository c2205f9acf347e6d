import { SessionClosedError } from 'nestjs-process-notifications';
import { JournalWriter } from '../../libs/process-notifications/src/persistence/journal/journal-writer.service.js';
import { SessionStore } from '../../libs/process-notifications/src/persistence/sessions/session-store.service.js';
import { createTestApp, notification } from '../support/test-app.js';

// Closing a session races with writes already on their way: a write that passed its entry check
// before the close committed, but reaches the journal's transaction after it, must not commit.
describe('closing a session against writes already queued', () => {
  let app: Awaited<ReturnType<typeof createTestApp>>;
  beforeEach(async () => {
    app = await createTestApp();
  });
  afterEach(() => app.close());

  it('refuses, with session_closed, a write of the session queued while the close was committing', async () => {
    const { sessionId } = await app.service.openSession();
    const { loopId } = await app.service.openLoop(sessionId);
    const writer = app.moduleRef.get(JournalWriter, { strict: false });

    // The close and a job that holds its transaction open, queued in that order: one batch.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const isHolding = new Promise<void>((resolve) => (holding = resolve));
    const closing = app.moduleRef.get(SessionStore, { strict: false }).closeSession(sessionId, new Date().toISOString(), () => undefined);
    const holder = writer.write(async () => {
      holding();
      await held;
    });
    await isHolding;
    // The close has run but not committed: a delivery's entry check lets this one through, and
    // its append waits for the next transaction.
    const late = writer.write(async (_manager, journal) => journal.append(draftOf(sessionId, loopId)), sessionId);
    release();

    const closedAt = await closing;
    await holder;
    const refused = await late.catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SessionClosedError);
    expect(refused).toMatchObject({ code: 'session_closed', closedAt });
    expect(await app.service.readJournal(sessionId)).toEqual([]);
  });
});

function draftOf(sessionId: string, loopId: string) {
  const payload = notification(sessionId, loopId);
  return { sessionId, loopId, kind: 'process_notification' as const, idempotencyId: String(payload.command_id), payload };
}
