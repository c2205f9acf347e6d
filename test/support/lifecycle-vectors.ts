import { readFileSync } from 'node:fs';
import type { NotificationVector } from './notification-vectors.js';

/** One of the contract's lifecycle validation vectors: the same shape as a notification vector. */
export type LifecycleVector = NotificationVector;

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../lifecycle/fixtures/${name}`, import.meta.url), 'utf8')) as LifecycleVector[];

/** A verbatim copy of the contract's vectors (spec/vectors/lifecycle-validation.json). */
export const CONTRACT_LIFECYCLE_VECTORS = fixture('lifecycle-validation.json');

/**
 * The project's own vectors for the record's `signal` (section 6, issue 47), which the contract's
 * vectors do not cover yet: valid names in each state that allows one, bad patterns, wrong JSON
 * types, the kinds and states that refuse it, and its place in the order of checks (after
 * `command_id`, before the tuple and the shape).
 */
export const SIGNAL_LIFECYCLE_VECTORS = fixture('lifecycle-signal-validation.json');

/** Every lifecycle vector: the contract's, then the project's. */
export const LIFECYCLE_VECTORS: readonly LifecycleVector[] = [...CONTRACT_LIFECYCLE_VECTORS, ...SIGNAL_LIFECYCLE_VECTORS];
