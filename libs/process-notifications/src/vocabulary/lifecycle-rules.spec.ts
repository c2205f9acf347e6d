import { LIFECYCLE_KINDS } from 'process-notifications-contract';
import { LIFECYCLE_RULES, lifecycleRuleOf } from './lifecycle-rules.js';

describe('lifecycle rules', () => {
  it('has one rule per kind of the contract', () => {
    expect(Object.keys(LIFECYCLE_RULES).sort()).toEqual([...LIFECYCLE_KINDS].sort());
  });

  it('knows no rule for a value that is not a kind, so nothing unknown passes as valid', () => {
    for (const kind of ['exited', 'STARTED', 'constructor', '__proto__', 'toString', undefined, null, 1]) {
      expect(lifecycleRuleOf(kind)).toBeUndefined();
    }
  });
});
