import { randomUUID } from 'node:crypto';
import { notification } from '../support/test-app.js';
import { loopHostsOnOneFile } from './support/loop-hosts.js';

interface Pending {
  commandId: string;
}

// Issue 37: a batch consume is one journal transaction. A process SIGKILLed after that
// transaction committed and before anyone heard of it loses nothing and repeats nothing: the
// retry of the same batch answers consumed: false for each, with the committed sequences.
describe('batch consume across a crash between commit and answer (SIGKILL, file database)', () => {
  const { start, close, rows } = loopHostsOnOneFile();

  const consumedRows = () =>
    rows<{ sequence: number; cause_command_id: string }>(
      "SELECT sequence, cause_command_id FROM pn_journal WHERE kind = 'process_notification_consumed' ORDER BY sequence",
    );

  it('keeps the whole batch consumed once, and the retry answers consumed: false with the same sequences', async () => {
    const sessionId = randomUUID();
    const loopId = randomUUID();
    const setup = await start();
    await setup.call('openSession', { sessionId });
    await setup.call('openLoop', { sessionId, loopId });
    const sent = Array.from({ length: 5 }, () => notification(sessionId, loopId));
    for (const n of sent) await setup.call('deliver', { notification: n });
    await close(setup);

    const batch = sent.slice(0, 4).map((n) => String(n.command_id));
    const paused = await start({ PN_TEST_CRASH_WINDOW: 'consumed' });
    paused.send('consumeMany', { sessionId, loopId, commandIds: batch });
    await paused.waitFor((line) => line.raw === `crash-window ${batch[0]}`);
    await paused.kill();

    // Committed whole, and the caller never heard back.
    const committed = consumedRows();
    expect(committed.map((row) => row.cause_command_id)).toEqual(batch);
    expect(paused.lines.some((line) => line.id !== undefined)).toBe(false);

    const restarted = await start();
    expect((await restarted.call<Pending[]>('pending', { sessionId, loopId })).map((p) => p.commandId)).toEqual([sent[4]!.command_id]);
    // The caller's retry of the same batch: nothing new, each with its committed sequence.
    await expect(restarted.call('consumeMany', { sessionId, loopId, commandIds: batch })).resolves.toEqual(
      committed.map((row) => ({ commandId: row.cause_command_id, consumed: false, sequence: row.sequence })),
    );
    expect(consumedRows()).toEqual(committed);
  });
});
