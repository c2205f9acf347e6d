import type { ProcessLifecycleRecord } from '../model/process-lifecycle-record.interface.js';

/**
 * A running process was moved to the background (a `backgrounded` lifecycle record). Published
 * once, after the journal commit, and never for an identical retry.
 */
export class ProcessBackgroundedEvent {
  constructor(
    /** The record as journaled (kind `backgrounded`). */
    readonly record: ProcessLifecycleRecord,
    /** Journal sequence of the record. */
    readonly sequence: number,
    /** Server time the record was journaled (RFC 3339, UTC). */
    readonly createdAt: string,
  ) {}
}
