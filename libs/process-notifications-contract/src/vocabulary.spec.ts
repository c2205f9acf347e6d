import {
  isProcessState,
  isTerminalPair,
  isTerminalReason,
  PROBLEM_DISPOSITIONS,
  PROCESS_STATES,
  SUCCESS_DISPOSITIONS,
  DISPOSITIONS,
  TERMINAL_PAIRS,
  TERMINAL_REASONS,
} from './vocabulary.js';

// The sets themselves are held to docs/contract.md's text by test/docs/contract-vocabulary.int-spec.ts;
// these are the guards built on them.
describe('the contract vocabulary', () => {
  it('makes exactly the pairs of the table terminal', () => {
    for (const state of PROCESS_STATES) {
      for (const reason of TERMINAL_REASONS) {
        const listed =
          Object.hasOwn(TERMINAL_PAIRS, state) &&
          (TERMINAL_PAIRS[state as keyof typeof TERMINAL_PAIRS] as readonly string[]).includes(reason);
        expect([state, reason, isTerminalPair(state, reason)]).toEqual([state, reason, listed]);
      }
    }
  });

  it('never makes starting or running terminal', () => {
    for (const reason of TERMINAL_REASONS) {
      expect(isTerminalPair('starting', reason)).toBe(false);
      expect(isTerminalPair('running', reason)).toBe(false);
    }
  });

  it('knows every state and reason it lists', () => {
    for (const state of PROCESS_STATES) expect(isProcessState(state)).toBe(true);
    for (const reason of TERMINAL_REASONS) expect(isTerminalReason(reason)).toBe(true);
  });

  it('rejects non-strings and inherited property names', () => {
    for (const value of [undefined, null, 1, true, [], {}, 'constructor', 'toString', '__proto__', 'EXITED']) {
      expect(isProcessState(value)).toBe(false);
      expect(isTerminalReason(value)).toBe(false);
      expect(isTerminalPair(value, 'exited')).toBe(false);
      expect(isTerminalPair('exited', value)).toBe(false);
    }
    expect(isTerminalPair(['exited'], ['exited'])).toBe(false);
  });

  it('splits the dispositions into the answers of a success and those of a problem', () => {
    expect([...SUCCESS_DISPOSITIONS, ...PROBLEM_DISPOSITIONS].sort()).toEqual([...DISPOSITIONS].sort());
  });
});
