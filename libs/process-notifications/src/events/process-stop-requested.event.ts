import type { ProcessLifecycleRecord } from '../model/process-lifecycle-record.interface.js';

/**
 * A stop was requested for a starting or running process (a `stop_requested` lifecycle record).
 * Published once, after the journal commit, and never for an identical retry.
 */
export class ProcessStopRequestedEvent {
  constructor(
    /** The record as journaled (kind `stop_requested`). */
    readonly record: ProcessLifecycleRecord,
    /** Journal sequence of the record. */
    readonly sequence: number,
    /** Server time the record was journaled (RFC 3339, UTC). */
    readonly createdAt: string,
  ) {}
}
