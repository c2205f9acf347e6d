import { ValidateBy } from 'class-validator';
import { LIFECYCLE_DIAGNOSTIC_MAX_BYTES } from 'process-notifications-contract';
import { lifecycleRuleOf } from '../vocabulary/lifecycle-rules.js';
import type { ProcessState } from '../vocabulary/process-vocabulary.js';

// The bound is the contract's (section 6); the library exports it from here, as it always did.
export { LIFECYCLE_DIAGNOSTIC_MAX_BYTES };

// With the u flag a well-formed surrogate pair is one code point, so only lone halves match.
const LONE_SURROGATE = /\p{Cs}/u;

/** Only `completed` with state `failed`, and `lost`, may explain themselves. */
function allowsDiagnostic(object: { kind?: unknown; state?: unknown }): boolean {
  return lifecycleRuleOf(object.kind)?.diagnostic(object.state as ProcessState) ?? false;
}

/**
 * A lifecycle `diagnostic`: a string that encodes as valid UTF-8 (no lone surrogate) in at most
 * 512 bytes, carried only by `completed` records with state `failed` and by `lost` records.
 */
export function LifecycleDiagnostic(): PropertyDecorator {
  return ValidateBy({
    name: 'isLifecycleDiagnostic',
    validator: {
      validate: (value, args) =>
        typeof value === 'string' &&
        !LONE_SURROGATE.test(value) &&
        Buffer.byteLength(value, 'utf8') <= LIFECYCLE_DIAGNOSTIC_MAX_BYTES &&
        allowsDiagnostic(args!.object as { kind?: unknown; state?: unknown }),
      defaultMessage: (args) =>
        allowsDiagnostic(args!.object as { kind?: unknown; state?: unknown })
          ? `diagnostic must be valid UTF-8 of at most ${LIFECYCLE_DIAGNOSTIC_MAX_BYTES} bytes`
          : 'diagnostic is only allowed on completed records with state failed and on lost records',
    },
  });
}
