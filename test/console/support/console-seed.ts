import { ProcessNotificationsClient, type ProcessCompletionNotification } from 'process-notifications-client';
import { randomUUID } from 'node:crypto';
import { SERVER_ADMIN_TOKEN } from '../../support/server-process.js';

/** The capacity the console's test server gives every loop, so that a loop is full after two deliveries. */
export const SEEDED_CAPACITY = 2;

/** A completion of `process_handle` for a loop. */
export function completion(
  sessionId: string,
  loopId: string,
  processHandle = 'make-test',
  commandId: string = randomUUID(),
): ProcessCompletionNotification {
  return {
    command_id: commandId,
    session_id: sessionId,
    loop_id: loopId,
    process_handle: processHandle,
    state: 'exited',
    reason: 'exited',
  };
}

/** What {@link seedConsole} made: one loop in every state the loops filter tells apart. */
export interface SeededSession {
  readonly sessionId: string;
  readonly token: string;
  /** Capacity reached, and one more refused as inbox_full: its next delivery answers inbox_full. */
  readonly fullLoopId: string;
  /** One unconsumed notification, room for more. */
  readonly busyLoopId: string;
  /** Stopped with an unconsumed notification nobody will take. */
  readonly stoppedLoopId: string;
  /** Nothing journaled. */
  readonly idleLoopId: string;
  /** The busy loop's pending notification. */
  readonly pendingCommandId: string;
  /** A notification of the full loop that was consumed. */
  readonly consumedCommandId: string;
  /** The full loop's notification it refused as inbox_full: journaled, unconsumed, not pending. */
  readonly overflowCommandId: string;
  /** The stopped loop's notification it refused once stopped: journaled, unconsumed. */
  readonly refusedByStoppedCommandId: string;
  /** The busy loop's pending notification's id, reused for another payload: an idempotency collision. */
  readonly collidedCommandId: string;
  /** The original's journal sequence. */
  readonly collidedSequence: number;
}

/** Fixed ids, so that a screenshot of a seeded console shows the same ids every time. */
export interface SeedIds {
  readonly sessionId?: string;
  readonly loopIds?: readonly [string, string, string, string];
  readonly commandIds?: readonly string[];
}

/**
 * A session seeded through the API as supervisors and a loop would: deliveries, lifecycle
 * records, a consume, a delivery the full loop refuses (inbox_full), a stop, a delivery the
 * stopped loop refuses, and a command id reused for another payload (a collision).
 */
export async function seedConsole(baseUrl: string, ids: SeedIds = {}): Promise<SeededSession> {
  const admin = new ProcessNotificationsClient({ baseUrl, token: SERVER_ADMIN_TOKEN });
  const session = await admin.createSession(ids.sessionId ? { session_id: ids.sessionId } : {});
  const client = admin.withToken(session.token);
  const sessionId = session.session_id;
  const [full, busy, stopped, idle] = ids.loopIds ?? [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const commandIds = [...(ids.commandIds ?? [])];
  const nextCommandId = (): string => commandIds.shift() ?? randomUUID();
  // Opened oldest first: the admin list shows the newest first.
  for (const loopId of [idle, stopped, busy, full]) await client.openLoop(sessionId, { loop_id: loopId });

  const pending = completion(sessionId, busy, 'npm-test', nextCommandId());
  const started = new Date(Date.now() - 90_000).toISOString();
  const finished = new Date(Date.now() - 5_000).toISOString();
  await client.publishLifecycle({
    event_id: randomUUID(),
    kind: 'started',
    session_id: sessionId,
    loop_id: busy,
    process_handle: 'npm-test',
    origin_execution_id: randomUUID(),
    state: 'running',
    process_created_at: started,
    process_started_at: started,
  });
  await client.publishLifecycle({
    event_id: randomUUID(),
    kind: 'completed',
    session_id: sessionId,
    loop_id: busy,
    process_handle: 'npm-test',
    origin_execution_id: randomUUID(),
    state: 'exited',
    reason: 'exited',
    has_exit_code: true,
    exit_code: 0,
    process_created_at: started,
    process_started_at: started,
    process_finished_at: finished,
    // Section 14: the record reports the same run as the notification below.
    command_id: pending.command_id,
  });
  const { sequence: pendingSequence } = await client.deliverCompletion(pending);

  const consumed = completion(sessionId, full, 'cargo-build', nextCommandId());
  await client.deliverCompletion(consumed);
  await client.consume(sessionId, full, consumed.command_id);
  await client.deliverCompletion(completion(sessionId, full, 'cargo-build', nextCommandId()));
  await client.deliverCompletion(completion(sessionId, full, 'cargo-clippy', nextCommandId()));
  // Refused as inbox_full: journaled, counted as unconsumed, in no loop's set.
  const overflow = completion(sessionId, full, 'cargo-doc', nextCommandId());
  await client.deliverCompletion(overflow, { retry: false }).catch(() => undefined);

  await client.deliverCompletion(completion(sessionId, stopped, 'pytest', nextCommandId()));
  await client.stopLoop(sessionId, stopped);
  // Refused (delivery_stopped, loop_stopped): listed among the node's refusals.
  const refusedByStopped = completion(sessionId, stopped, 'pytest', nextCommandId());
  await client.deliverCompletion(refusedByStopped, { retry: false }).catch(() => undefined);
  // Refused (idempotency_collision): the pending notification's id with another process handle.
  await client.deliverCompletion({ ...pending, process_handle: 'npm-lint' }, { retry: false }).catch(() => undefined);

  return {
    sessionId,
    token: session.token,
    fullLoopId: full,
    busyLoopId: busy,
    stoppedLoopId: stopped,
    idleLoopId: idle,
    pendingCommandId: pending.command_id,
    consumedCommandId: consumed.command_id,
    overflowCommandId: overflow.command_id,
    refusedByStoppedCommandId: refusedByStopped.command_id,
    collidedCommandId: pending.command_id,
    collidedSequence: pendingSequence,
  };
}
