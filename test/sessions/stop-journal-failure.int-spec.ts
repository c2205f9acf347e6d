import { JournalUnavailableError } from 'nestjs-process-notifications';
import { rejection } from '../support/rejection.js';
import { notification, useSessionWithLoop } from '../support/test-app.js';

// A stop is journaled like everything else (spec §7): when its record cannot be written the
// stop did not happen, so the loop must go on taking notifications as before.
describe('stopping a loop when the journal refuses its stop record', () => {
  const t = useSessionWithLoop();

  // The loop's stop record is refused inside the stop's transaction, after the loop row was
  // updated: the failure comes when the stop is half done and must be taken back.
  const refuseStopRecords = (on: boolean) =>
    t.dataSource.query(
      on
        ? "CREATE TRIGGER refuse_stop BEFORE INSERT ON pn_journal WHEN NEW.kind = 'loop_stopped' BEGIN SELECT RAISE(ABORT, 'refused'); END"
        : 'DROP TRIGGER refuse_stop',
    );

  it('answers journal_unavailable and leaves the loop running; once writes work, the stop takes effect', async () => {
    const { service, sessionId, loopId } = t;
    await refuseStopRecords(true);
    expect(await rejection(service.stopLoop(sessionId, loopId))).toBeInstanceOf(JournalUnavailableError);
    await refuseStopRecords(false);

    expect(await service.getLoop(sessionId, loopId)).toMatchObject({ state: 'running' });
    const n = notification(sessionId, loopId);
    await expect(service.notifyProcessCompletion(sessionId, n)).resolves.toMatchObject({ disposition: 'accepted' });

    await expect(service.stopLoop(sessionId, loopId)).resolves.toMatchObject({ state: 'stopped', pending: 1 });
    await expect(service.notifyProcessCompletion(sessionId, notification(sessionId, loopId))).rejects.toMatchObject({
      code: 'delivery_stopped',
      stopCause: 'loop_stopped',
    });
  });
});
