import { randomUUID } from 'node:crypto';
import { lifecycleRecord } from './test-app.js';

/** A `completed` record of a run that exited with `exitCode`, naming its notification's command id. */
export function exitedRecord(
  sessionId: string,
  loopId: string,
  commandId: string,
  exitCode: number,
  overrides: Record<string, unknown> = {},
) {
  return lifecycleRecord(sessionId, loopId, {
    event_id: randomUUID(),
    kind: 'completed',
    state: 'exited',
    reason: 'exited',
    process_finished_at: '2026-01-01T00:00:09Z',
    has_exit_code: true,
    exit_code: exitCode,
    command_id: commandId,
    ...overrides,
  });
}

/** A `completed` record of a command that could not be started (state `failed`, a diagnostic, no start). */
export function failedRecord(sessionId: string, loopId: string, commandId: string, diagnostic = 'command not found') {
  const { process_started_at: _started, ...record } = lifecycleRecord(sessionId, loopId, {
    kind: 'completed',
    state: 'failed',
    reason: 'failed',
    process_finished_at: '2026-01-01T00:00:00.5Z',
    diagnostic,
    command_id: commandId,
  });
  return record;
}

/** A `lost` record naming its notification's command id. */
export function lostRecord(sessionId: string, loopId: string, commandId: string) {
  return lifecycleRecord(sessionId, loopId, {
    kind: 'lost',
    state: 'lost_on_restore',
    reason: 'lost_on_restore',
    process_finished_at: '2026-01-01T00:01:00Z',
    diagnostic: 'supervisor restarted',
    command_id: commandId,
  });
}

/**
 * A `completed` record of a run a signal ended (issue 47): state and reason `state` (`killed`,
 * `terminated`, `interrupted` or `timed_out`), no exit code, `signal` set unless it is undefined.
 */
export function signalledRecord(
  sessionId: string,
  loopId: string,
  commandId: string,
  state: 'killed' | 'terminated' | 'interrupted' | 'timed_out',
  signal: string | undefined,
) {
  return lifecycleRecord(sessionId, loopId, {
    event_id: randomUUID(),
    kind: 'completed',
    state,
    reason: state,
    process_finished_at: '2026-01-01T00:00:09Z',
    command_id: commandId,
    ...(signal === undefined ? {} : { signal }),
  });
}
