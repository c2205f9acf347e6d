import { ValidateBy } from 'class-validator';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * A lifecycle `exit_code`: a 32-bit signed integer, and 0 unless the record's `has_exit_code`
 * is true (a zero without the flag reads as "no exit code").
 */
export function LifecycleExitCode(): PropertyDecorator {
  return ValidateBy({
    name: 'isLifecycleExitCode',
    validator: {
      validate: (value, args) =>
        Number.isInteger(value) &&
        (value as number) >= INT32_MIN &&
        (value as number) <= INT32_MAX &&
        (value === 0 || (args!.object as { has_exit_code?: unknown }).has_exit_code === true),
      defaultMessage: () => 'exit_code must be a 32-bit integer, and 0 unless has_exit_code is true',
    },
  });
}
