import { randomUUID } from 'node:crypto';
import type { LoopEvent, PendingNotification, ProcessOutcome } from 'process-notifications-contract';
import { CompletionTracker } from './completion-tracker.js';

const SESSION = randomUUID();
const LOOP = randomUUID();

const outcome = (exitCode: number): ProcessOutcome => ({
  event_id: randomUUID(),
  kind: 'completed',
  has_exit_code: true,
  exit_code: exitCode,
  diagnostic: null,
  signal: null,
  process_started_at: null,
  process_finished_at: null,
});

function pending(sequence: number, commandId = randomUUID(), result: ProcessOutcome | null = null): PendingNotification {
  return {
    command_id: commandId,
    session_id: SESSION,
    loop_id: LOOP,
    process_handle: `job-${sequence}`,
    state: 'exited',
    reason: 'exited',
    sequence,
    outcome: result,
  };
}

const notification = (n: PendingNotification): LoopEvent => ({ id: n.sequence, type: 'notification', notification: n });
const outcomeOf = (n: PendingNotification, id: number, result: ProcessOutcome): LoopEvent => ({
  id,
  type: 'outcome',
  notification: { ...n, outcome: result },
});
const consumed = (n: PendingNotification, id: number): LoopEvent => ({
  id,
  type: 'consumed',
  consumed: { command_id: n.command_id, sequence: id },
});

describe('CompletionTracker', () => {
  it('yields each notification once as new, and its later outcome once', () => {
    const tracker = new CompletionTracker();
    const a = pending(1);
    const result = outcome(3);
    expect(tracker.take(notification(a))).toEqual({ notification: a, update: 'new' });
    expect(tracker.take(notification(a))).toBeUndefined();
    expect(tracker.take(outcomeOf(a, 2, result))).toEqual({ notification: { ...a, outcome: result }, update: 'outcome' });
    expect(tracker.take(outcomeOf(a, 2, result))).toBeUndefined();
  });

  it('does not yield an outcome again for a notification that came with it', () => {
    const tracker = new CompletionTracker();
    const a = pending(2, randomUUID(), outcome(0));
    expect(tracker.take(notification(a))).toMatchObject({ update: 'new' });
    expect(tracker.take(outcomeOf(a, 3, a.outcome!))).toBeUndefined();
  });

  it('lets go of a consumed notification, and ignores outcomes of notifications it never gave', () => {
    const tracker = new CompletionTracker();
    const a = pending(1);
    tracker.take(notification(a));
    expect(tracker.size).toBe(1);
    expect(tracker.take(consumed(a, 5))).toBeUndefined();
    expect(tracker.size).toBe(0);
    expect(tracker.take(outcomeOf(pending(4), 6, outcome(1)))).toBeUndefined();
    expect(tracker.size).toBe(0);
  });

  it('resuming: yields the outcome of a notification at or before the resume position', () => {
    const tracker = new CompletionTracker(10);
    const old = pending(10);
    const result = outcome(2);
    expect(tracker.take(outcomeOf(old, 12, result))).toEqual({ notification: { ...old, outcome: result }, update: 'outcome' });
    expect(tracker.take(outcomeOf(pending(11), 13, result))).toBeUndefined();
  });
});
