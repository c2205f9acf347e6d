import { ProcessNotificationsClient, ProblemError, type ProcessCompletionNotification } from 'process-notifications-client';
import { randomUUID } from 'node:crypto';
import { tempDir } from '../durability/support/temp-dir.js';
import { inFreshSchema } from '../support/postgres.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';

// Issue 37: a consume issued as soon as completions() gave a notification answered 404 ("never
// accepted"). Many loops with a small capacity, senders faster than the loops, and every loop
// consuming each notification the moment it is given, on a SQLite file and on PostgreSQL. Every
// consume must succeed, each notification be consumed exactly once, and none be left pending.

const LOOPS = 8;
const SENDERS = 16;
const NOTIFICATIONS = 320;
// Small, so that loops fill up and deliveries are refused `inbox_full` and retried: such a
// notification is journaled for its loop and given to it before any retry is accepted.
const CAPACITY = '4';

async function consumeAsGiven(server: ServerProcess): Promise<void> {
  const admin = new ProcessNotificationsClient({ baseUrl: server.url, token: SERVER_ADMIN_TOKEN });
  const created = await admin.createSession();
  const client = admin.withToken(created.token);
  const sessionId = created.session_id;
  const loops = await Promise.all(Array.from({ length: LOOPS }, () => client.openLoop(sessionId)));
  const stop = new AbortController();
  const consumed = new Map<string, number>();
  const errors: string[] = [];
  let given = 0;

  const consumers = loops.map(async ({ loop_id: loopId }) => {
    const inFlight: Promise<void>[] = [];
    for await (const { notification, update } of client.completions(sessionId, loopId, { signal: stop.signal })) {
      if (update !== 'new') continue;
      given++;
      // Not awaited: the next notification is taken while this consume is on its way.
      inFlight.push(
        client.consume(sessionId, loopId, notification.command_id, { retry: false }).then(
          ({ consumed: first }) => {
            if (first) consumed.set(notification.command_id, (consumed.get(notification.command_id) ?? 0) + 1);
          },
          (error: unknown) => {
            errors.push(error instanceof ProblemError ? `${error.status} ${error.code}: ${error.detail}` : String(error));
          },
        ),
      );
    }
    await Promise.all(inFlight);
  });

  const sent: ProcessCompletionNotification[] = Array.from({ length: NOTIFICATIONS }, (_, i) => ({
    command_id: randomUUID(),
    session_id: sessionId,
    loop_id: loops[i % LOOPS]!.loop_id,
    process_handle: `job-${i}`,
    state: 'exited',
    reason: 'exited',
  }));
  let next = 0;
  // A loop left holding notifications it was never given fills up and refuses the rest for ever:
  // senders give up after a while, and what the consumers were told is checked first.
  const retry = { retry: true, deadlineMs: 20_000 } as const;
  const sending = await Promise.allSettled(
    Array.from({ length: SENDERS }, async () => {
      while (next < sent.length) await client.deliverCompletion(sent[next++]!, retry);
    }),
  );
  // Until every notification was consumed once (or a consume failed), then the loops stop.
  const deadline = Date.now() + 10_000;
  while (consumed.size < NOTIFICATIONS && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  stop.abort();
  await Promise.all(consumers);

  expect(errors).toEqual([]);
  expect(sending.filter((result) => result.status === 'rejected')).toEqual([]);
  expect(given).toBe(NOTIFICATIONS);
  expect(consumed.size).toBe(NOTIFICATIONS);
  expect([...consumed.values()].every((count) => count === 1)).toBe(true);
  for (const { loop_id: loopId } of loops) {
    expect((await client.pendingNotifications(sessionId, loopId)).notifications).toEqual([]);
  }
}

describe('a loop consumes each notification as soon as it is given', () => {
  it('on a SQLite file: no consume answers 404, nothing is left pending', async () => {
    const dir = tempDir();
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('db')}`, PN_LOOP_CAPACITY: CAPACITY });
    try {
      await consumeAsGiven(server);
    } finally {
      await server.stop();
      dir.remove();
    }
  }, 120_000);

  it('on PostgreSQL: no consume answers 404, nothing is left pending', async () => {
    await inFreshSchema(async (databaseUrl) => {
      const server = await ServerProcess.start({ PN_DATABASE_URL: databaseUrl, PN_LOOP_CAPACITY: CAPACITY });
      try {
        await consumeAsGiven(server);
      } finally {
        await server.stop();
      }
    });
  }, 120_000);
});
