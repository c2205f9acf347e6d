import { randomUUID } from 'node:crypto';
import { notification } from '../support/test-app.js';
import { loopHostsOnOneFile } from './support/loop-hosts.js';

interface Pending {
  commandId: string;
}

// Real processes killed with SIGKILL: no shutdown hook runs, nothing is flushed by us.
describe('crash safety (SIGKILL of a real process on a file database)', () => {
  const { start, close, rows } = loopHostsOnOneFile();

  const journalRows = () => rows<{ idempotency_id: string; kind: string }>('SELECT idempotency_id, kind FROM pn_journal ORDER BY sequence');

  it('delivers a notification exactly once when the process dies between journal commit and dispatch', async () => {
    const sessionId = randomUUID();
    const loopId = randomUUID();
    const setup = await start();
    await setup.call('openSession', { sessionId });
    await setup.call('openLoop', { sessionId, loopId });
    await close(setup);

    const paused = await start({ PN_TEST_CRASH_WINDOW: '1' });
    const n = notification(sessionId, loopId);
    paused.send('deliver', { notification: n });
    await paused.waitFor((line) => line.raw === `crash-window ${n.command_id}`);
    await paused.kill();

    // It was journaled, never dispatched, and the caller never heard back.
    expect(journalRows()).toEqual([{ idempotency_id: n.command_id, kind: 'process_notification' }]);
    expect(paused.lines.some((line) => line.id !== undefined)).toBe(false);

    const restarted = await start();
    const pending = await restarted.call<Pending[]>('pending', { sessionId, loopId });
    expect(pending.map((p) => p.commandId)).toEqual([n.command_id]);
    // The supervisor's retry after the crash: a duplicate, and no second record.
    await expect(restarted.call('deliver', { notification: n })).resolves.toMatchObject({ disposition: 'duplicate', appended: false });
    expect((await restarted.call<Pending[]>('pending', { sessionId, loopId })).map((p) => p.commandId)).toEqual([n.command_id]);
    expect(journalRows()).toHaveLength(1);
  });

  it('loses no acknowledged notification and writes no duplicate when killed mid-burst of 1,000', async () => {
    const sessionId = randomUUID();
    const loopId = randomUUID();
    const host = await start({ PN_LOOP_CAPACITY: '2000' });
    await host.call('openSession', { sessionId });
    await host.call('openLoop', { sessionId, loopId });
    const burst = Array.from({ length: 1000 }, () => notification(sessionId, loopId));
    host.send('burst', { notifications: burst });
    // Kill as soon as the first acknowledgements arrive, while later batches are in flight.
    await host.waitFor((line) => line.delivered !== undefined);
    await host.kill();
    const acknowledged = host.lines.filter((line) => line.delivered !== undefined).map((line) => line.delivered as string);
    expect(acknowledged.length).toBeGreaterThan(0);

    const rows = journalRows();
    const journaled = rows.map((row) => row.idempotency_id);
    expect(new Set(journaled).size).toBe(journaled.length);
    expect(journaled).toEqual(expect.arrayContaining(acknowledged));

    const restarted = await start({ PN_LOOP_CAPACITY: '2000' });
    const pending = (await restarted.call<Pending[]>('pending', { sessionId, loopId })).map((p) => p.commandId);
    // Every journaled notification (acknowledged or not) is pending, once, in journal order.
    expect(pending).toEqual(journaled);

    // The supervisor retries everything it did not hear back about: each lands exactly once.
    const unacknowledged = burst.filter((n) => !acknowledged.includes(n.command_id as string));
    host.lines.length = 0;
    await restarted.call('burst', { notifications: unacknowledged });
    const finalRows = journalRows();
    expect(finalRows).toHaveLength(1000);
    expect(new Set(finalRows.map((row) => row.idempotency_id)).size).toBe(1000);
    expect(await restarted.call<Pending[]>('pending', { sessionId, loopId })).toHaveLength(1000);
  });
});
