import { ValidateBy } from 'class-validator';
import { isTerminalPair } from '../vocabulary/process-vocabulary.js';

/** `state` and `reason` together form one of the terminal pairs (checked from either side). */
export function TerminalPair(): PropertyDecorator {
  return ValidateBy({
    name: 'isTerminalPair',
    validator: {
      validate: (_value, args) => {
        const object = args?.object as { state?: unknown; reason?: unknown };
        return isTerminalPair(object.state, object.reason);
      },
      defaultMessage: () => 'state and reason must form one of the terminal pairs',
    },
  });
}
