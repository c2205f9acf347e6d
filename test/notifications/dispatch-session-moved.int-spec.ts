import { OwnerUnavailableError } from 'nestjs-process-notifications';
import { JournalWriter } from '../../libs/process-notifications/src/persistence/journal/journal-writer.service.js';
import { Loops } from '../../libs/process-notifications/src/loops/loops.service.js';
import { rejection } from '../support/rejection.js';
import { notification, useSessionWithLoop } from '../support/test-app.js';

// A notification journaled while its session moved to another node (this node's loops of the
// session were unloaded, as at a takeover): the caller is told the owner is unavailable, with the
// reason, and its retry is answered by the new owner; it is not left waiting.
describe('a notification whose session moved to another node between its append and its dispatch', () => {
  const t = useSessionWithLoop();

  it('answers owner_unavailable saying the session moved, and the record stays journaled', async () => {
    const { moduleRef, service, sessionId, loopId } = t;
    const n = notification(sessionId, loopId);
    const loops = moduleRef.get(Loops, { strict: false });
    // Committed records are published before the caller hears of the commit: the takeover
    // happens right after the append, before the dispatch.
    const subscription = moduleRef.get(JournalWriter, { strict: false }).records$.subscribe((record) => {
      if (record.idempotencyId === n.command_id) loops.unloadSession(sessionId);
    });
    const error = await rejection(service.notifyProcessCompletion(sessionId, n));
    subscription.unsubscribe();
    expect(error).toBeInstanceOf(OwnerUnavailableError);
    expect(error).toMatchObject({
      code: 'owner_unavailable',
      sessionId,
      retryAfterSeconds: 1,
      message: `the owner of session ${sessionId} is unavailable: the session moved to another node`,
    });
    expect((await service.readJournal(sessionId)).map((record) => record.idempotencyId)).toContain(n.command_id);
  });
});
