import type { JournalRecord } from 'process-notifications-client';
import { LoopHistory } from './loop-history.js';

const LOOP = '6e1d9a4b-3c2f-4b8a-a1d7-5f0e2c9b8d33';
const OTHER = '9d2c1b0a-8f7e-4d6c-b5a4-3f2e1d0c9b8a';
let sequence = 0;

function record(kind: string, fields: Partial<JournalRecord> = {}, payload: Record<string, unknown> | null = {}): JournalRecord {
  sequence++;
  return {
    sequence,
    kind,
    loop_id: LOOP,
    idempotency_id: `id-${sequence}`,
    cause_command_id: null,
    created_at: new Date(Date.UTC(2026, 11, 1, 21, 0, sequence)).toISOString(),
    payload: payload as JournalRecord['payload'],
    ...fields,
  };
}

describe('LoopHistory', () => {
  it('counts the loop’s notifications without a consumed record, and when each was journaled', () => {
    const history = new LoopHistory(LOOP);
    const first = record('process_notification', { idempotency_id: 'c1' });
    const second = record('process_notification', { idempotency_id: 'c2' });
    expect(history.add(first)).toBe(true);
    history.add(second);
    expect(history.add(record('process_notification', { idempotency_id: 'c3', loop_id: OTHER }))).toBe(false);
    expect(history.unconsumed).toBe(2);
    history.add(record('process_notification_consumed', { cause_command_id: 'c1' }));
    expect(history.unconsumed).toBe(1);
    expect(history.journaledAtOf(second.sequence)).toBe(second.created_at);
    expect(history.journaledAtOf(999)).toBeUndefined();
  });

  it('lists the unconsumed notifications in journal order, with what their payload says (none once dropped)', () => {
    const history = new LoopHistory(LOOP);
    const first = record('process_notification', { idempotency_id: 'c1' }, { process_handle: 'build', state: 'exited', reason: 'exited' });
    const second = record('process_notification', { idempotency_id: 'c2' }, null);
    const third = record('process_notification', { idempotency_id: 'c3' }, { process_handle: 'lint', state: 'failed', reason: 'failed' });
    // Arrived out of order (a page and the live stream): listed by sequence all the same.
    for (const r of [third, first, second]) history.add(r);
    history.add(record('process_notification_consumed', { cause_command_id: 'c3' }));
    expect(history.unconsumedNotifications).toEqual([
      { commandId: 'c1', sequence: first.sequence, createdAt: first.created_at, processHandle: 'build', state: 'exited', reason: 'exited' },
      { commandId: 'c2', sequence: second.sequence, createdAt: second.created_at, processHandle: null, state: null, reason: null },
    ]);
  });

  it('folds each process handle’s lifecycle records, most recently active first', () => {
    const history = new LoopHistory(LOOP);
    const started = record('started', {}, { process_handle: 'build', state: 'running' });
    history.add(started);
    history.add(record('started', {}, { process_handle: 'lint', state: 'running' }));
    history.add(record('stop_requested', {}, { process_handle: 'lint', state: 'running', reason: 'terminated' }));
    const completed = record(
      'completed',
      {},
      { process_handle: 'build', state: 'exited', reason: 'exited', has_exit_code: true, exit_code: 0 },
    );
    history.add(completed);
    // A record whose payload retention dropped tells nothing more.
    history.add(record('lost', {}, null));
    expect(history.lifecycles).toEqual([
      {
        processHandle: 'build',
        at: { started: started.created_at, completed: completed.created_at },
        state: 'exited',
        reason: 'exited',
        exitCode: 0,
        signal: undefined,
        lastSequence: completed.sequence,
      },
      expect.objectContaining({ processHandle: 'lint', state: 'running', reason: 'terminated', exitCode: undefined }),
    ]);
  });

  it('keeps the signal a completed record names (issue 47), not just its state', () => {
    const history = new LoopHistory(LOOP);
    history.add(record('started', {}, { process_handle: 'crash', state: 'running' }));
    history.add(record('completed', {}, { process_handle: 'crash', state: 'killed', reason: 'killed', signal: 'SIGSEGV' }));
    expect(history.lifecycles).toEqual([
      expect.objectContaining({ processHandle: 'crash', state: 'killed', reason: 'killed', exitCode: undefined, signal: 'SIGSEGV' }),
    ]);
  });
});
