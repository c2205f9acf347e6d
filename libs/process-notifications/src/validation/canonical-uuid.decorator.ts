import { applyDecorators } from '@nestjs/common';
import { ValidateBy } from 'class-validator';
import { ValidationError } from '../errors/validation.error.js';
import { DirectTransform } from './dto-instance.js';
import { normaliseId } from './normalise-id.js';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** True for a canonical 8-4-4-4-12 hex UUID of any version, any case, other than the nil UUID. */
export function isCanonicalUuid(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 36) return false;
  const lower = normaliseId(value);
  return lower !== NIL_UUID && CANONICAL_UUID.test(lower);
}

/** The lower-case form of a canonical, non-nil UUID; anything else is a ValidationError on `field`. */
export function requireCanonicalUuid(value: unknown, field: string): string {
  if (!isCanonicalUuid(value)) throw new ValidationError(field, `${field} must be a canonical, non-nil UUID`);
  return normaliseId(value);
}

/**
 * An id passed by embedding code to look something up, where it enters the library (see
 * `normaliseId`): any case, compared in lower case. Only its type is checked here; an id that is
 * not a UUID simply finds nothing.
 */
export function idOf(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new ValidationError(field, `${field} must be a string`);
  return normaliseId(value);
}

/**
 * A UUID field: canonical form, not nil, stored and compared in lower case (so an upper-case
 * retry is identical, not a collision).
 */
export function CanonicalUuid(): PropertyDecorator {
  return applyDecorators(
    DirectTransform(normaliseId),
    ValidateBy({
      name: 'isCanonicalUuid',
      validator: {
        validate: (value) => isCanonicalUuid(value),
        defaultMessage: (args) => `${args?.property} must be a canonical, non-nil UUID`,
      },
    }),
  );
}
