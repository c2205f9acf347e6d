import { stateEntry } from '../../../test/supervisor/support/state-entry.fixture.js';
import { StateEntryValidator } from './state-entry.validator.js';

const FINISHED = '2026-01-01T00:00:02.000Z';

// A state file is JSON a later supervisor (maybe a newer one) reads back: what it accepts.
describe('StateEntryValidator: the completion’s signal', () => {
  const check = (completion: object) => {
    const entry = JSON.parse(JSON.stringify(stateEntry({ started_at: FINISHED }))) as Record<string, unknown>;
    entry.completion = completion;
    return StateEntryValidator.validate(entry, entry.command_id as string);
  };

  it('keeps an entry written before the signal was recorded valid', () => {
    expect(check({ state: 'killed', reason: 'killed', finished_at: FINISHED, exit_status: 137 })).toHaveProperty('entry');
  });

  it('takes an entry with its signal, and skips one whose signal is not a string', () => {
    expect(check({ state: 'killed', reason: 'killed', signal: 'SIGSEGV', finished_at: FINISHED, exit_status: 139 })).toHaveProperty(
      'entry',
    );
    for (const signal of [11, null, ['SIGSEGV']]) {
      expect(check({ state: 'killed', reason: 'killed', signal, finished_at: FINISHED, exit_status: 139 })).toEqual({
        problem: 'not a state entry',
      });
    }
  });
});
