import { randomUUID } from 'node:crypto';
import { ANY_SESSION, commitHintPayload, hintedSessions } from './journal-commit-hint.js';
import type { JournalRecordEntity } from './journal-record.entity.js';

const recordOf = (sessionId: string): JournalRecordEntity => ({ sessionId }) as JournalRecordEntity;

describe('the commit hint payload', () => {
  it('is nothing for a batch that wrote no record', () => {
    expect(commitHintPayload([])).toBeUndefined();
  });

  it('names each session written once, in the order first written', () => {
    const [a, b] = [randomUUID(), randomUUID()];
    expect(commitHintPayload([a, b, a, b].map(recordOf))).toBe(`${a},${b}`);
  });

  it('names the sessions while the list fits in 7,900 characters, and means "any session" past that', () => {
    // 36 characters per session plus a comma: 213 sessions take 7,880 characters, 214 take 7,917.
    const sessions = Array.from({ length: 214 }, () => randomUUID());
    expect(commitHintPayload(sessions.slice(0, 213).map(recordOf))).toHaveLength(7_880);
    expect(commitHintPayload(sessions.map(recordOf))).toBe(ANY_SESSION);
  });
});

describe('the sessions a hint names for a node', () => {
  const [node, other, a, b] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];

  it("are none for the node's own hint, and the sessions for every other node", () => {
    const payload = commitHintPayload([a, b].map(recordOf), node)!;
    expect(payload).toBe(`${a},${b},@${node}`);
    expect(hintedSessions(payload, node)).toEqual([]);
    expect(hintedSessions(payload, other)).toEqual([a, b]);
  });

  it('are every session for "any session", and the listed ones for a hint that names no origin', () => {
    expect(hintedSessions(ANY_SESSION, node)).toBeNull();
    expect(hintedSessions(`${a},${b}`, node)).toEqual([a, b]);
  });

  it('mean "any session" when the list with its origin does not fit, even for the node that sent it', () => {
    // 212 sessions and the origin (37 characters with its mark) take 7,881 characters, 213 take 7,918.
    const sessions = Array.from({ length: 213 }, () => randomUUID());
    expect(commitHintPayload(sessions.slice(0, 212).map(recordOf), node)).toHaveLength(7_881);
    expect(hintedSessions(commitHintPayload(sessions.map(recordOf), node)!, node)).toBeNull();
  });
});
