import { randomUUID } from 'node:crypto';
import type { PendingProcessNotification } from '../model/pending-process-notification.interface.js';
import { CONSUMED_UNHELD_KEPT, ProcessLoop } from './process-loop.js';

const SESSION = randomUUID();
const LOOP = randomUUID();

function pending(overrides: Partial<PendingProcessNotification> = {}): PendingProcessNotification {
  return {
    commandId: randomUUID(),
    sessionId: SESSION,
    loopId: LOOP,
    processHandle: 'proc-1',
    state: 'exited',
    reason: 'exited',
    sequence: 1,
    ...overrides,
  };
}

describe('ProcessLoop.offer', () => {
  const loop = (capacity = 2) => new ProcessLoop(SESSION, LOOP, 'native', 'running', capacity);

  it('accepts into an insertion-ordered set and answers duplicate for an id it holds', () => {
    const subject = loop(3);
    const [a, b] = [pending(), pending()];
    expect(subject.offer(a)).toEqual({ disposition: 'accepted' });
    expect(subject.offer(b)).toEqual({ disposition: 'accepted' });
    expect(subject.offer({ ...a, processHandle: 'other', sequence: 9 })).toEqual({ disposition: 'duplicate' });
    expect(subject.list()).toEqual([a, b]);
  });

  it('answers inbox_full at capacity and never grows past it; a duplicate still answers duplicate', () => {
    const subject = loop(2);
    const [a, b, c] = [pending(), pending(), pending()];
    subject.offer(a);
    subject.offer(b);
    expect(subject.offer(c)).toEqual({ disposition: 'stopped', cause: 'inbox_full' });
    expect(subject.offer(c)).toEqual({ disposition: 'stopped', cause: 'inbox_full' });
    expect(subject.offer(a)).toEqual({ disposition: 'duplicate' });
    expect(subject.size).toBe(2);
    expect(subject.has(c.commandId)).toBe(false);
  });

  it.each([
    ['another session', { sessionId: randomUUID() }],
    ['another loop', { loopId: randomUUID() }],
    ['another session and loop', { sessionId: randomUUID(), loopId: randomUUID() }],
    ['the right ids in another case', { loopId: LOOP.toUpperCase() }],
  ])('answers misrouted for a notification addressed to %s, and keeps it out', (_label, overrides) => {
    const subject = loop();
    const stray = pending(overrides);
    expect(subject.offer(stray)).toEqual({ disposition: 'stopped', cause: 'misrouted' });
    expect(subject.size).toBe(0);
  });

  it('checks routing before the stopped state and the capacity', () => {
    const subject = loop(1);
    subject.offer(pending());
    expect(subject.offer(pending({ loopId: randomUUID() }))).toEqual({ disposition: 'stopped', cause: 'misrouted' });
    subject.stop();
    expect(subject.offer(pending({ loopId: randomUUID() }))).toEqual({ disposition: 'stopped', cause: 'misrouted' });
  });

  it('answers loop_stopped, not inbox_full, when a stopped loop is also full (stopped is final, full is retried)', () => {
    const subject = loop(1);
    const held = pending();
    subject.offer(held);
    subject.stop();
    expect(subject.offer(pending())).toEqual({ disposition: 'stopped', cause: 'loop_stopped' });
    expect(subject.list()).toEqual([held]);
  });

  it('answers loop_stopped once stopped, and keeps what it held', () => {
    const subject = loop();
    const held = pending();
    subject.offer(held);
    subject.stop();
    expect(subject.state).toBe('stopped');
    expect(subject.offer(pending())).toEqual({ disposition: 'stopped', cause: 'loop_stopped' });
    // What it already holds is a duplicate, not a reason for the supervisor to retry forever.
    expect(subject.offer(held)).toEqual({ disposition: 'duplicate' });
    expect(subject.list()).toEqual([held]);
  });
});

describe('ProcessLoop size reports', () => {
  it('reports every change of the pending set, and nothing for answers that change nothing', () => {
    let total = 0;
    const subject = new ProcessLoop(SESSION, LOOP, 'native', 'running', 2, (delta) => (total += delta));
    const [a, b, c] = [pending(), pending(), pending()];
    subject.offer(a);
    subject.offer(a); // duplicate
    subject.restore(b);
    subject.restore(b); // already held
    subject.offer(c); // inbox_full
    expect(total).toBe(2);
    subject.remove(a.commandId);
    subject.remove(a.commandId); // already gone
    expect(total).toBe(1);
    expect(total).toBe(subject.size);
  });

  it('reports nothing once detached (its owner has let go of it), though it still answers', () => {
    let total = 0;
    const subject = new ProcessLoop(SESSION, LOOP, 'native', 'running', 2, (delta) => (total += delta));
    const [a, b] = [pending(), pending()];
    subject.offer(a);
    subject.detach();
    expect(subject.offer(b)).toEqual({ disposition: 'accepted' });
    subject.remove(a.commandId);
    subject.restore(pending());
    expect(total).toBe(1);
    expect(subject.size).toBe(2);
  });
});

describe('ProcessLoop.pendingEntry', () => {
  it("builds the loop's entry from a journaled notification and its sequence, sharing the loop's id strings", () => {
    // Fresh strings, equal to the loop's but not the same objects, as JSON.parse gives them.
    const [sessionId, loopId] = [String([SESSION]), String([LOOP])];
    const subject = new ProcessLoop(sessionId, loopId, 'native', 'running', 2);
    const notification = {
      command_id: randomUUID(),
      session_id: SESSION,
      loop_id: LOOP,
      process_handle: 'proc-7',
      state: 'killed',
      reason: 'output_limit',
    } as const;
    const entry = subject.pendingEntry(notification, 42);
    expect(entry).toEqual({
      commandId: notification.command_id,
      sessionId: SESSION,
      loopId: LOOP,
      processHandle: 'proc-7',
      state: 'killed',
      reason: 'output_limit',
      sequence: 42,
    });
    expect(subject.offer(entry)).toEqual({ disposition: 'accepted' });
  });
});

describe('ProcessLoop.consumed', () => {
  const loop = () => new ProcessLoop(SESSION, LOOP, 'native', 'running', 4);

  it('removes a held notification, and remembers one it did not hold so a later dispatch can leave it out', () => {
    const subject = loop();
    const [held, notYet] = [pending(), pending()];
    subject.offer(held);
    subject.consumed(held.commandId);
    subject.consumed(notYet.commandId);
    expect(subject.list()).toEqual([]);
    expect(subject.wasConsumed(held.commandId)).toBe(false);
    expect(subject.wasConsumed(notYet.commandId)).toBe(true);
  });

  it('remembers a bounded number of them, forgetting the oldest first', () => {
    const subject = loop();
    const ids = Array.from({ length: CONSUMED_UNHELD_KEPT + 1 }, () => randomUUID());
    for (const id of ids) subject.consumed(id);
    expect(subject.wasConsumed(ids[0]!)).toBe(false);
    expect(subject.wasConsumed(ids[1]!)).toBe(true);
    expect(subject.wasConsumed(ids.at(-1)!)).toBe(true);
  });
});
