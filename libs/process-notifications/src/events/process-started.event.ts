import type { ProcessLifecycleRecord } from '../model/process-lifecycle-record.interface.js';

/**
 * A process started running (a `started` lifecycle record). Published once, after the journal
 * commit, and never for an identical retry.
 */
export class ProcessStartedEvent {
  constructor(
    /** The record as journaled (kind `started`). */
    readonly record: ProcessLifecycleRecord,
    /** Journal sequence of the record. */
    readonly sequence: number,
    /** Server time the record was journaled (RFC 3339, UTC). */
    readonly createdAt: string,
  ) {}
}
