import { JOURNAL_KINDS, OUTCOME_KINDS } from 'nestjs-process-notifications';
import type { JournalKind, OutcomeKind } from 'process-notifications-client';

// The dependency-free client spells the closed sets out; these tables fail to compile when its
// union misses a kind or has one too many, and the test fails when the library's list differs.
const CLIENT_JOURNAL_KINDS: Record<JournalKind, true> = {
  process_notification: true,
  process_notification_consumed: true,
  loop_stopped: true,
  started: true,
  backgrounded: true,
  completed: true,
  stop_requested: true,
  lost: true,
};
const CLIENT_OUTCOME_KINDS: Record<OutcomeKind, true> = { completed: true, lost: true };

describe("the client's copies of the library's closed sets", () => {
  it('journal kinds', () => {
    expect(Object.keys(CLIENT_JOURNAL_KINDS).sort()).toEqual([...JOURNAL_KINDS].sort());
  });

  it('outcome kinds', () => {
    expect(Object.keys(CLIENT_OUTCOME_KINDS).sort()).toEqual([...OUTCOME_KINDS].sort());
  });
});
