import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ValidationError } from '../errors/validation.error.js';

/** A whole-object rule, checked once every field is valid; a failure is reported as `field`. */
export interface InputCheck<T extends object> {
  readonly field: string;
  readonly test: (instance: T) => boolean;
  readonly message: string;
}

/** How a closed-schema DTO is checked: which keys exist, and in which order fields are reported. */
export interface InputSchema<T extends object = object> {
  /** Every property the input may carry; any other own key is rejected under its own name. */
  readonly properties: readonly string[];
  /** Reporting order of fields; the first failing one is named. */
  readonly order: readonly string[];
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
  // A non-object carries none of the fields: it fails on the first one, as a missing field would.
  if (!isPlainObject(input)) throw new ValidationError(schema.order[0]!, 'expected a JSON object');
  for (const key of Object.keys(input)) {
    if (!schema.properties.includes(key)) throw new ValidationError(key, `unknown property "${key}"`);
  }
  const instance = plainToInstance(dto, { ...input });
  const errors = validateSync(instance, { validationError: { target: false, value: false } });
  if (errors.length === 0) {
    const failed = schema.checks?.find((check) => !check.test(instance));
    if (failed) throw new ValidationError(failed.field, failed.message);
    return instance;
  }
  let first: { field: string; rank: number; message: string } | undefined;
  for (const error of errors) {
    const field = schema.fieldOf?.[error.property] ?? error.property;
    const rank = schema.order.indexOf(field);
    const message = Object.values(error.constraints ?? {})[0] ?? `invalid ${field}`;
    if (!first || (rank >= 0 && (first.rank < 0 || rank < first.rank))) first = { field, rank, message };
  }
  throw new ValidationError(first!.field, first!.message);
}
