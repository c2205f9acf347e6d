import { ValidateBy } from 'class-validator';

// ASCII-only, so the 128-byte limit is also a 128-character limit.
const PROCESS_HANDLE = /^[A-Za-z0-9_-]{1,128}$/;

/** The rule of a process handle, for documents that describe it (the OpenAPI schema). */
export const PROCESS_HANDLE_PATTERN = PROCESS_HANDLE.source;

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
