import type { ProcessLifecycleRecord } from '../model/process-lifecycle-record.interface.js';

/**
 * A process was lost across a restart of its supervisor (a `lost` lifecycle record). Published
 * once, after the journal commit, and never for an identical retry.
 */
export class ProcessLostEvent {
  constructor(
    /** The record as journaled (kind `lost`). */
    readonly record: ProcessLifecycleRecord,
    /** Journal sequence of the record. */
    readonly sequence: number,
    /** Server time the record was journaled (RFC 3339, UTC). */
    readonly createdAt: string,
  ) {}
}
