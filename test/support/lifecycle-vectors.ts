import { readFileSync } from 'node:fs';
import type { NotificationVector } from './notification-vectors.js';

/** One of the contract's lifecycle validation vectors: the same shape as a notification vector. */
export type LifecycleVector = NotificationVector;

/** A verbatim copy of the contract's vectors (spec/vectors/lifecycle-validation.json). */
export const LIFECYCLE_VECTORS = JSON.parse(
  readFileSync(new URL('../lifecycle/fixtures/lifecycle-validation.json', import.meta.url), 'utf8'),
) as LifecycleVector[];
