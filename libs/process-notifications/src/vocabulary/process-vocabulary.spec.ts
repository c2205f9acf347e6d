import {
  isProcessState,
  isTerminalPair,
  isTerminalReason,
  PROCESS_STATES,
  TERMINAL_PAIRS,
  TERMINAL_REASONS,
} from './process-vocabulary.js';

// Pins the single copy of the vocabulary to the contract's text (spec section 2), so the
// tests that iterate over it test the contract, not themselves.
describe('process vocabulary', () => {
  it('lists the nine states in the contract order', () => {
    expect(PROCESS_STATES).toEqual([
      'starting',
      'running',
      'exited',
      'failed',
      'timed_out',
      'interrupted',
      'terminated',
      'killed',
      'lost_on_restore',
    ]);
  });

  it('lists the nine reasons in the contract order', () => {
    expect(TERMINAL_REASONS).toEqual([
      'exited',
      'timed_out',
      'interrupted',
      'terminated',
      'killed',
      'runner_shutdown',
      'failed',
      'output_limit',
      'lost_on_restore',
    ]);
  });

  it('has exactly the terminal pairs of the contract table', () => {
    expect(TERMINAL_PAIRS).toEqual({
      exited: ['exited'],
      failed: ['failed'],
      timed_out: ['timed_out'],
      interrupted: ['interrupted'],
      terminated: ['terminated', 'runner_shutdown', 'output_limit'],
      killed: ['killed', 'runner_shutdown', 'output_limit'],
      lost_on_restore: ['lost_on_restore'],
    });
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
