import { readFileSync } from 'node:fs';

/** One of the contract's notification validation vectors: an input and the field it fails on (null: valid). */
export interface NotificationVector {
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly field: string | null;
}

/** A verbatim copy of the contract's vectors (spec/vectors/notification-validation.json). */
export const NOTIFICATION_VECTORS = JSON.parse(
  readFileSync(new URL('../notifications/fixtures/notification-validation.json', import.meta.url), 'utf8'),
) as NotificationVector[];

/** The session and loop every vector addresses (except where it tests them). */
export const VECTOR_SESSION = '1fe4b70e-320c-4988-a3ee-b16518253443';
export const VECTOR_LOOP = '96dade9e-59ca-46bf-ac91-84eaa806ca5a';

/**
 * `input`, then one copy per field and replacement with that field set to the replacement
 * (`undefined` included as a present key): what a validation vector looks like with one field
 * gone wrong. `replacementsOf` gets the field's value and returns fresh replacements.
 */
export function fieldVariants(
  input: Record<string, unknown>,
  replacementsOf: (value: unknown) => readonly unknown[],
): Record<string, unknown>[] {
  const variants = [input];
  for (const key of Object.keys(input)) {
    for (const replacement of replacementsOf(input[key])) variants.push({ ...input, [key]: replacement });
  }
  return variants;
}
