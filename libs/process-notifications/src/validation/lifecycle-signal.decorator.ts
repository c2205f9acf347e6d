import { ValidateBy } from 'class-validator';
import { PROCESS_SIGNAL_PATTERN, SIGNAL_STATES } from 'process-notifications-contract';
import { lifecycleRuleOf } from '../vocabulary/lifecycle-rules.js';
import type { ProcessState } from '../vocabulary/process-vocabulary.js';

const PROCESS_SIGNAL = new RegExp(PROCESS_SIGNAL_PATTERN);

/** Only a `completed` record whose state a signal can cause may name the signal. */
function allowsSignal(object: { kind?: unknown; state?: unknown }): boolean {
  return lifecycleRuleOf(object.kind)?.signal(object.state as ProcessState) ?? false;
}

/**
 * A lifecycle record's optional `signal` (section 6): the name of the POSIX signal that ended the
 * command (`SIG` and 2 to 10 upper-case letters or digits), only on `completed` records with state
 * `interrupted`, `terminated`, `killed` or `timed_out`.
 */
export function LifecycleSignal(): PropertyDecorator {
  return ValidateBy({
    name: 'isLifecycleSignal',
    validator: {
      validate: (value, args) =>
        typeof value === 'string' && PROCESS_SIGNAL.test(value) && allowsSignal(args!.object as { kind?: unknown; state?: unknown }),
      defaultMessage: (args) =>
        allowsSignal(args!.object as { kind?: unknown; state?: unknown })
          ? 'signal must be SIG and 2 to 10 upper-case letters or digits'
          : `signal is only allowed on completed records with state ${SIGNAL_STATES.join(', ')}`,
    },
  });
}
