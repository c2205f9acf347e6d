import { ValidateBy } from 'class-validator';
import { PROCESS_HANDLE_PATTERN } from 'process-notifications-contract';

// The contract's rule (ASCII-only, so the 128-byte limit is also a 128-character limit). The
// library exports the pattern from here, as it always did, for documents that describe it.
const PROCESS_HANDLE = new RegExp(PROCESS_HANDLE_PATTERN);
export { PROCESS_HANDLE_PATTERN };

/** An opaque process handle: 1 to 128 bytes of `A-Z a-z 0-9 - _`. */
export function ProcessHandle(): PropertyDecorator {
  return ValidateBy({
    name: 'isProcessHandle',
    validator: {
      validate: (value) => typeof value === 'string' && PROCESS_HANDLE.test(value),
      defaultMessage: (args) => `${args?.property} must be 1 to 128 characters of A-Z a-z 0-9 - _`,
    },
  });
}
