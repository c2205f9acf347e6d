import type { LifecycleRecord } from 'process-notifications-contract';

/**
 * A lifecycle record as journaled and published: the wire's record (the contract package's
 * `LifecycleRecord`, section 6), the supervisor's snake_case fields in the contract's table order,
 * only those it sent, UUIDs lower-cased, timestamps exactly as sent.
 */
export type ProcessLifecycleRecord = LifecycleRecord;
