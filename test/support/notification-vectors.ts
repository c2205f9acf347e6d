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
