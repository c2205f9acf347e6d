import type { JournalRecord, PendingNotification } from './api.types.js';
import { CompletionTracker, outcomeFromRecord } from './completion-tracker.js';

const SESSION = '11111111-1111-4111-8111-111111111111';
const LOOP = '22222222-2222-4222-8222-222222222222';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function pending(n: number, outcome: PendingNotification['outcome'] = null): PendingNotification {
  return {
    command_id: id(n),
    session_id: SESSION,
    loop_id: LOOP,
    process_handle: `p-${n}`,
    state: 'exited',
    reason: 'exited',
    sequence: n,
    outcome,
  };
}

function completed(sequence: number, commandId: string | undefined, exitCode: number, eventId = id(1000 + sequence)): JournalRecord {
  return {
    sequence,
    kind: 'completed',
    loop_id: LOOP,
    idempotency_id: eventId,
    cause_command_id: null,
    created_at: '2026-01-01T00:00:00Z',
    payload: {
      event_id: eventId,
      kind: 'completed',
      session_id: SESSION,
      loop_id: LOOP,
      process_handle: 'p',
      origin_execution_id: id(9999),
      state: 'exited',
      process_created_at: '2026-01-01T00:00:00Z',
      process_started_at: '2026-01-01T00:00:01Z',
      process_finished_at: '2026-01-01T00:00:02Z',
      has_exit_code: true,
      exit_code: exitCode,
      reason: 'exited',
      ...(commandId === undefined ? {} : { command_id: commandId }),
    },
  };
}

function notificationRecord(n: number, loopId = LOOP): JournalRecord {
  const { sequence: _sequence, outcome: _outcome, ...payload } = pending(n);
  return {
    sequence: n,
    kind: 'process_notification',
    loop_id: loopId,
    idempotency_id: id(n),
    cause_command_id: null,
    created_at: '2026-01-01T00:00:00Z',
    payload: { ...payload, loop_id: loopId },
  };
}

describe('CompletionTracker', () => {
  it('yields an outcome update once, for a notification yielded without one, from the first record only', () => {
    const tracker = new CompletionTracker(LOOP);
    expect(tracker.yieldNew(pending(1))).toEqual({ notification: pending(1), update: 'new' });
    const update = tracker.outcomeUpdate(completed(2, id(1), 3));
    expect(update).toMatchObject({ update: 'outcome', notification: { command_id: id(1), sequence: 1, outcome: { exit_code: 3 } } });
    expect(tracker.outcomeUpdate(completed(3, id(1), 0))).toBeUndefined();
  });

  it('gives no update for a notification yielded with its outcome', () => {
    const tracker = new CompletionTracker(LOOP);
    tracker.yieldNew(pending(1, outcomeFromRecord(completed(1, id(1), 0))!.outcome));
    expect(tracker.outcomeUpdate(completed(2, id(1), 3))).toBeUndefined();
  });

  it('keeps the first outcome met before its notification, and ignores records that name none', () => {
    const tracker = new CompletionTracker(LOOP);
    expect(tracker.outcomeUpdate(completed(1, undefined, 7))).toBeUndefined();
    tracker.outcomeUpdate(completed(2, id(5), 4));
    tracker.outcomeUpdate(completed(3, id(5), 0));
    expect(tracker.earlyOutcome(id(5))).toMatchObject({ exit_code: 4, event_id: id(1002) });
    expect(tracker.earlyOutcome(id(6))).toBeUndefined();
  });

  it('resuming: yields only the outcome the view shows, for a notification the caller already had', () => {
    const tracker = new CompletionTracker(LOOP);
    const shown = outcomeFromRecord(completed(7, id(1), 2, id(77)))!.outcome;
    tracker.alreadyDelivered(pending(1, shown));
    expect(tracker.outcomeUpdate(completed(6, id(1), 9, id(66)))).toBeUndefined();
    expect(tracker.outcomeUpdate(completed(7, id(1), 2, id(77)))).toMatchObject({
      update: 'outcome',
      notification: { outcome: { exit_code: 2 } },
    });
  });

  it('turns notification records of its own loop, not yielded yet, into pending notifications', () => {
    const tracker = new CompletionTracker(LOOP);
    const { outcome: _none, ...fields } = pending(3);
    expect(tracker.notificationOf(notificationRecord(3))).toEqual(fields);
    expect(tracker.notificationOf(notificationRecord(4, '33333333-3333-4333-8333-333333333333'))).toBeUndefined();
    tracker.yieldNew(pending(3));
    expect(tracker.notificationOf(notificationRecord(3))).toBeUndefined();
    expect(tracker.notificationOf({ ...notificationRecord(5), payload: null })).toBeUndefined();
  });

  it('reads an outcome from completed and lost records with every absent field null', () => {
    const lost: JournalRecord = {
      sequence: 9,
      kind: 'lost',
      loop_id: LOOP,
      idempotency_id: id(90),
      cause_command_id: null,
      created_at: '2026-01-01T00:00:00Z',
      payload: {
        event_id: id(90),
        kind: 'lost',
        session_id: SESSION,
        loop_id: LOOP,
        process_handle: 'p',
        origin_execution_id: id(91),
        state: 'lost_on_restore',
        process_created_at: '2026-01-01T00:00:00Z',
        process_finished_at: '2026-01-01T00:00:05Z',
        reason: 'lost_on_restore',
        command_id: id(1),
      },
    };
    expect(outcomeFromRecord(lost)).toEqual({
      commandId: id(1),
      outcome: {
        event_id: id(90),
        kind: 'lost',
        has_exit_code: false,
        exit_code: null,
        diagnostic: null,
        process_started_at: null,
        process_finished_at: '2026-01-01T00:00:05Z',
      },
    });
    expect(outcomeFromRecord({ ...lost, payload: null })).toBeUndefined();
    expect(outcomeFromRecord(notificationRecord(1))).toBeUndefined();
  });
});
