import { randomUUID } from 'node:crypto';
import { ANY_SESSION, commitHintPayload } from './journal-commit-hint.js';
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
