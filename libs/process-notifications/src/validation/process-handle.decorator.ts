import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';

// ASCII-only, so the 128-byte limit is also a 128-character limit.
const PROCESS_HANDLE = /^[A-Za-z0-9_-]{1,128}$/;

/** An opaque process handle: 1 to 128 bytes of `A-Z a-z 0-9 - _` (validation and OpenAPI). */
export function ProcessHandle(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ minLength: 1, maxLength: 128, pattern: PROCESS_HANDLE.source }),
    ValidateBy({
      name: 'isProcessHandle',
      validator: {
        validate: (value) => typeof value === 'string' && PROCESS_HANDLE.test(value),
        defaultMessage: (args) => `${args?.property} must be 1 to 128 characters of A-Z a-z 0-9 - _`,
      },
    }),
  );
}
