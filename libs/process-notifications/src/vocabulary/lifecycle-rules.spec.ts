import { LIFECYCLE_KINDS, PROCESS_STATES, SIGNAL_STATES } from 'process-notifications-contract';
import { LIFECYCLE_RULES, lifecycleRuleOf } from './lifecycle-rules.js';

describe('lifecycle rules', () => {
  it('has one rule per kind of the contract', () => {
    expect(Object.keys(LIFECYCLE_RULES).sort()).toEqual([...LIFECYCLE_KINDS].sort());
  });

  it('lets only completed name a signal, in exactly the states a signal ends (issue 47)', () => {
    const allowed = LIFECYCLE_KINDS.flatMap((kind) =>
      PROCESS_STATES.filter((state) => LIFECYCLE_RULES[kind].signal(state)).map((state) => `${kind}/${state}`),
    );
    expect(allowed.sort()).toEqual(SIGNAL_STATES.map((state) => `completed/${state}`).sort());
  });

  it('knows no rule for a value that is not a kind, so nothing unknown passes as valid', () => {
    for (const kind of ['exited', 'STARTED', 'constructor', '__proto__', 'toString', undefined, null, 1]) {
      expect(lifecycleRuleOf(kind)).toBeUndefined();
    }
  });
});
