import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ValidationError } from '../errors/validation.error.js';
import { dtoInstance } from './dto-instance.js';
import { validityCheckOf } from './validity-check.js';

/** A whole-object rule, checked once every field is valid; a failure is reported as `field`. */
export interface InputCheck<T extends object> {
  readonly field: string;
  readonly test: (instance: T) => boolean;
  /** What is wrong, shown to the caller; a function when it depends on the input. */
  readonly message: string | ((instance: T) => string);
}

/** How a closed-schema DTO is checked: which keys exist, and in which order fields are reported. */
export interface InputSchema<T extends object = object> {
  /**
   * Every property the input may carry, in the order fields are checked and reported; any other
   * own key is rejected under its own name.
   */
  readonly properties: readonly string[];
  /** Maps a DTO property to the field it is reported as (e.g. state and reason to `state_reason`). */
  readonly fieldOf?: Readonly<Record<string, string>>;
  /** Rules over several fields, run in order after all fields passed; the first failure is named. */
  readonly checks?: readonly InputCheck<T>[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks `input` against a class-validator DTO with a closed schema and returns the DTO
 * instance, or throws a {@link ValidationError} naming the first failing field.
 * Unknown properties are rejected before anything else is looked at, so a payload that
 * smuggles in a command line, output or environment never gets further.
 */
export function validateInput<T extends object>(dto: ClassConstructor<T>, schema: InputSchema<T>, input: unknown): T {
  return validated(dto, schema, input, true);
}

/**
 * {@link validateInput} by the libraries' own path alone: plainToInstance and validateSync for
 * every input. What the specs prove the fast path against; not for the hot path.
 */
export function validateInputByLibrary<T extends object>(dto: ClassConstructor<T>, schema: InputSchema<T>, input: unknown): T {
  return validated(dto, schema, input, false);
}

function validated<T extends object>(dto: ClassConstructor<T>, schema: InputSchema<T>, input: unknown, fast: boolean): T {
  const fieldOf = (property: string) => schema.fieldOf?.[property] ?? property;
  // A non-object carries none of the fields: it fails on the first one, as a missing field would.
  // Embedders may also pass an instance of the exported DTO class itself.
  if (!isPlainObject(input) && !(input instanceof dto)) {
    throw new ValidationError(fieldOf(schema.properties[0] ?? 'body'), 'expected a JSON object');
  }
  for (const key of Object.keys(input)) {
    if (!schema.properties.includes(key)) throw new ValidationError(key, `unknown property "${key}"`);
  }
  const instance = fast ? dtoInstance(dto, input) : plainToInstance(dto, { ...input });
  // Valid input, the common case, is recognised without validateSync's error objects (measured
  // in apps/bench: 8 to 47 % of notify throughput in memory); validity-check.spec.ts proves it.
  if (!fast || validityCheckOf(dto)?.(instance) !== true) {
    // Unknown keys were rejected above; a DTO without decorators (an empty body) is valid.
    const errors = validateSync(instance, { forbidUnknownValues: false, validationError: { target: false, value: false } });
    if (errors.length > 0) {
      const rank = (property: string) => schema.properties.indexOf(property);
      const first = errors.reduce((a, b) => (rank(b.property) < rank(a.property) ? b : a));
      throw new ValidationError(fieldOf(first.property), Object.values(first.constraints ?? {})[0] ?? `invalid ${fieldOf(first.property)}`);
    }
  }
  const failed = schema.checks?.find((check) => !check.test(instance));
  if (failed) throw new ValidationError(failed.field, typeof failed.message === 'string' ? failed.message : failed.message(instance));
  return instance;
}
