import type { JournalRecord, TestSession } from './api.js';

/** The default handle of a command whose base name made valid is `base`: `base-` and 8 hex characters. */
export const byDefault = (base: string): RegExp => new RegExp(`^${base.replace(/[^A-Za-z0-9_-]/g, '\\$&')}-[0-9a-f]{8}$`);

/** The ids line the supervisor prints before the command starts (spec section 14). */
export const IDS_LINE = /^pn-supervise: command_id=([0-9a-f-]{36}) process_handle=([A-Za-z0-9_-]{1,128})\n/m;

/** What one supervised command should have left in the journal (spec sections 6 and 10). */
export interface ExpectedRun {
  /** The handle, or a pattern for a default one (base name, `-`, 8 hex characters). */
  readonly handle: string | RegExp;
  readonly state: string;
  readonly reason: string;
  readonly exitCode?: number;
  /** The reason of a `stop_requested` record, when one is expected. */
  readonly stopRequested?: string;
  /** Whether a `started` record is expected (not for a command that could not start). */
  readonly started?: boolean;
  /** The signal the `completed` record names (issue 47); `null`: none. Unset: not checked. */
  readonly signal?: string | null;
}

/**
 * Asserts that the session's journal holds exactly the records of one supervised command, in
 * order, each id once, with the shapes of spec section 6; returns them.
 */
export async function expectRun(session: TestSession, expected: ExpectedRun): Promise<JournalRecord[]> {
  const records = await session.processRecords();
  const started = expected.started ?? true;
  const kinds = [
    ...(started ? ['started'] : []),
    ...(expected.stopRequested ? ['stop_requested'] : []),
    'completed',
    'process_notification',
  ];
  expect(records.map((r) => r.kind)).toEqual(kinds);
  expect(new Set(records.map((r) => r.idempotency_id)).size).toBe(records.length);

  const lifecycle = records.filter((r) => r.kind !== 'process_notification');
  const origin = lifecycle[0]!.payload.origin_execution_id;
  for (const record of lifecycle) {
    expect(record.payload).toMatchObject({
      session_id: session.sessionId,
      loop_id: session.loopId,
      process_handle: typeof expected.handle === 'string' ? expected.handle : expect.stringMatching(expected.handle),
      origin_execution_id: origin,
      process_created_at: expect.any(String),
    });
    expect('process_started_at' in record.payload).toBe(started);
  }
  const completed = lifecycle.at(-1)!.payload;
  expect(completed).toMatchObject({ state: expected.state, reason: expected.reason, process_finished_at: expect.any(String) });
  if (expected.exitCode === undefined) {
    expect(completed.has_exit_code ?? false).toBe(false);
    expect(completed.exit_code ?? 0).toBe(0);
  } else {
    expect(completed).toMatchObject({ has_exit_code: true, exit_code: expected.exitCode });
  }
  if (expected.signal !== undefined) expect(completed.signal ?? null).toBe(expected.signal);
  if (expected.stopRequested) {
    expect(lifecycle.find((r) => r.kind === 'stop_requested')!.payload).toMatchObject({ state: 'running', reason: expected.stopRequested });
  }
  const notification = records.at(-1)!;
  expect(notification.payload).toEqual({
    command_id: notification.idempotency_id,
    session_id: session.sessionId,
    loop_id: session.loopId,
    process_handle: lifecycle[0]!.payload.process_handle,
    state: expected.state,
    reason: expected.reason,
  });
  // The completed record names the notification of the same run (spec section 14).
  expect(completed.command_id).toBe(notification.idempotency_id);
  return records;
}
