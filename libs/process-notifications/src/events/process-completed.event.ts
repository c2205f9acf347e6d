import type { ProcessLifecycleRecord } from '../model/process-lifecycle-record.interface.js';

/**
 * A process reached a terminal state (a `completed` lifecycle record). Published once, after the
 * journal commit, and never for an identical retry.
 */
export class ProcessCompletedEvent {
  constructor(
    /** The record as journaled (kind `completed`). */
    readonly record: ProcessLifecycleRecord,
    /** Journal sequence of the record. */
    readonly sequence: number,
    /** Server time the record was journaled (RFC 3339, UTC). */
    readonly createdAt: string,
  ) {}
}
