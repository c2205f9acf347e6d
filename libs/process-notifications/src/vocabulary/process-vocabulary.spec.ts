import {
  isProcessState,
  isTerminalPair,
  isTerminalReason,
  PROCESS_STATES,
  TERMINAL_PAIRS,
  TERMINAL_REASONS,
} from './process-vocabulary.js';
import { CONTRACT_REASONS, CONTRACT_STATES, CONTRACT_TERMINAL_PAIRS } from '../../../../test/support/contract-vocabulary.js';

// Pins the library's vocabulary (the definition the clients' copies are held to) to the contract's
// text (spec section 2, written out once for all tests in test/support/contract-vocabulary.ts),
// so tests that iterate over it test the contract, not themselves.
describe('process vocabulary', () => {
  it('lists the nine states in the contract order', () => {
    expect(PROCESS_STATES).toEqual(CONTRACT_STATES);
  });

  it('lists the nine reasons in the contract order', () => {
    expect(TERMINAL_REASONS).toEqual(CONTRACT_REASONS);
  });

  it('has exactly the terminal pairs of the contract table', () => {
    const pairs = Object.entries(TERMINAL_PAIRS).flatMap(([state, reasons]) => reasons!.map((reason) => [state, reason]));
    expect(pairs).toEqual(CONTRACT_TERMINAL_PAIRS);
  });

  it('never makes starting or running terminal', () => {
    for (const reason of TERMINAL_REASONS) {
      expect(isTerminalPair('starting', reason)).toBe(false);
      expect(isTerminalPair('running', reason)).toBe(false);
    }
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
});
