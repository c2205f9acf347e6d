import { randomUUID } from 'node:crypto';
import { ProcessNotificationsClient, type LifecycleRecord, type ProcessCompletionNotification } from 'process-notifications-client';

/** A new completion notification of `loopId` (a fresh command id and handle), with `overrides`. */
export function completion(
  sessionId: string,
  loopId: string,
  overrides: Partial<ProcessCompletionNotification> = {},
): ProcessCompletionNotification {
  return {
    command_id: randomUUID(),
    session_id: sessionId,
    loop_id: loopId,
    process_handle: `job-${randomUUID().slice(0, 8)}`,
    state: 'exited',
    reason: 'exited',
    ...overrides,
  } as ProcessCompletionNotification;
}

/** The `completed` record of a run that exited with `exitCode`, naming `notification` (of `loopId`). */
export function exited(notification: ProcessCompletionNotification, exitCode: number, loopId = notification.loop_id): LifecycleRecord {
  return {
    event_id: randomUUID(),
    kind: 'completed',
    session_id: notification.session_id,
    loop_id: loopId,
    process_handle: notification.process_handle,
    origin_execution_id: randomUUID(),
    state: 'exited',
    process_created_at: '2026-01-01T00:00:00Z',
    process_started_at: '2026-01-01T00:00:01Z',
    process_finished_at: '2026-01-01T00:00:02Z',
    has_exit_code: true,
    exit_code: exitCode,
    reason: 'exited',
    command_id: notification.command_id,
  };
}

/**
 * Pulls an iterator in the background: `items` as they come, `until(n)` waits until n came (or
 * fails after `timeoutMs`, naming what came as `summary` puts it), `done` when the iteration ends.
 */
export function collect<T>(iterator: AsyncGenerator<T>, summary: (items: readonly T[]) => unknown, timeoutMs = 20_000) {
  const items: T[] = [];
  const done = (async () => {
    for await (const item of iterator) items.push(item);
  })();
  const until = async (count: number): Promise<T[]> => {
    const deadline = Date.now() + timeoutMs;
    while (items.length < count) {
      if (Date.now() > deadline) throw new Error(`only ${items.length} of ${count} items: ${JSON.stringify(summary(items))}`);
      await new Promise((next) => setTimeout(next, 20));
    }
    return items;
  };
  return { items, until, done };
}

/** A new session on the server at `baseUrl` with one loop, and a client of its token (quick retries). */
export async function sessionOn(baseUrl: string, adminToken: string, retry = {}) {
  const admin = new ProcessNotificationsClient({ baseUrl, token: adminToken, retry: { baseDelayMs: 50, maxDelayMs: 200, ...retry } });
  const session = await admin.createSession();
  const client = admin.withToken(session.token);
  const loop = await client.openLoop(session.session_id);
  return { admin, client, token: session.token, sessionId: session.session_id, loopId: loop.loop_id };
}
