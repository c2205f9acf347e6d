import { exitedRecord, lostRecord } from '../support/outcome-records.js';
import { inFreshSchema } from '../support/postgres.js';
import { createTestApp, notification, openSessionWithLoop } from '../support/test-app.js';

// Several nodes on one PostgreSQL database (section 9): the link is in the database, so every
// node, and the next owner of the session, sees the same outcome.
describe('the outcome on PostgreSQL, across nodes and restarts', () => {
  it('every node reads the outcome; the next owner shows it in the pending view; the first record stays the outcome', () =>
    inFreshSchema(async (databaseUrl) => {
      const first = await createTestApp({ databaseUrl });
      const second = await createTestApp({ databaseUrl });
      let firstOpen = true;
      const { sessionId, loopId } = await openSessionWithLoop(first.service);
      try {
        const early = notification(sessionId, loopId);
        const late = notification(sessionId, loopId);
        await first.service.notifyProcessCompletion(sessionId, early);
        expect(await second.service.processOutcomes(sessionId, [early.command_id as string])).toEqual(new Map());
        const record = exitedRecord(sessionId, loopId, early.command_id as string, 3);
        await first.service.publishProcessLifecycle(sessionId, record);
        await first.service.publishProcessLifecycle(sessionId, lostRecord(sessionId, loopId, late.command_id as string));

        // Read on a node that does not own the session.
        const seen = await second.service.processOutcomes(sessionId, [early.command_id as string, late.command_id as string]);
        expect(seen.get(early.command_id as string)).toMatchObject({
          eventId: record.event_id,
          kind: 'completed',
          exitCode: 3,
          hasExitCode: true,
        });
        expect(seen.get(late.command_id as string)).toMatchObject({ kind: 'lost', exitCode: null, hasExitCode: false });

        // The owner goes away; the second node takes the session over and shows the outcomes.
        await first.close();
        firstOpen = false;
        await second.service.notifyProcessCompletion(sessionId, late);
        // A later record for the same command on the new owner changes nothing.
        await second.service.publishProcessLifecycle(sessionId, exitedRecord(sessionId, loopId, early.command_id as string, 0));
        const pending = await second.service.pendingNotifications(sessionId, loopId);
        expect(pending.map((p) => [p.commandId, p.outcome?.kind, p.outcome?.exitCode])).toEqual([
          [early.command_id, 'completed', 3],
          [late.command_id, 'lost', null],
        ]);
      } finally {
        if (firstOpen) await first.close();
        await second.close();
      }

      // A restarted node (a new node id) reads the same.
      const third = await createTestApp({ databaseUrl });
      try {
        const pending = await third.service.pendingNotifications(sessionId, loopId);
        expect(pending.map((p) => p.outcome?.exitCode ?? null)).toEqual([3, null]);
      } finally {
        await third.close();
      }
    }));
});
