import { CONTRACT_LIFECYCLE_KINDS } from '../../../../test/support/contract-vocabulary.js';
import { LIFECYCLE_RULES, lifecycleRuleOf } from './lifecycle-rules.js';
import { LIFECYCLE_KINDS } from './process-vocabulary.js';

describe('lifecycle rules', () => {
  it("has one rule per kind of the contract, and the library's kinds are the contract's", () => {
    expect(LIFECYCLE_KINDS).toEqual(CONTRACT_LIFECYCLE_KINDS);
    expect(Object.keys(LIFECYCLE_RULES).sort()).toEqual([...CONTRACT_LIFECYCLE_KINDS].sort());
  });

  it('knows no rule for a value that is not a kind, so nothing unknown passes as valid', () => {
    for (const kind of ['exited', 'STARTED', 'constructor', '__proto__', 'toString', undefined, null, 1]) {
      expect(lifecycleRuleOf(kind)).toBeUndefined();
    }
  });
});
