import type { ProcessLifecycleRecordDto } from '../commands/publish-process-lifecycle/process-lifecycle-record.dto.js';
import type { ProcessBackgroundedEvent } from './process-backgrounded.event.js';
import type { ProcessCompletedEvent } from './process-completed.event.js';
import type { ProcessLostEvent } from './process-lost.event.js';
import type { ProcessStartedEvent } from './process-started.event.js';
import type { ProcessStopRequestedEvent } from './process-stop-requested.event.js';

/**
 * A lifecycle record as journaled and published: the supervisor's snake_case fields in the
 * contract's table order, only those it sent, UUIDs lower-cased, timestamps exactly as sent.
 */
export type ProcessLifecycleRecord = Readonly<ProcessLifecycleRecordDto>;

/** Any of the five lifecycle domain events. */
export type ProcessLifecycleEvent =
  | ProcessStartedEvent
  | ProcessBackgroundedEvent
  | ProcessCompletedEvent
  | ProcessStopRequestedEvent
  | ProcessLostEvent;
