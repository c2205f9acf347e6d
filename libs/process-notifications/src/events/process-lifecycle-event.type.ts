import type { ProcessBackgroundedEvent } from './process-backgrounded.event.js';
import type { ProcessCompletedEvent } from './process-completed.event.js';
import type { ProcessLostEvent } from './process-lost.event.js';
import type { ProcessStartedEvent } from './process-started.event.js';
import type { ProcessStopRequestedEvent } from './process-stop-requested.event.js';

/** Any of the five lifecycle domain events. */
export type ProcessLifecycleEvent =
  ProcessStartedEvent | ProcessBackgroundedEvent | ProcessCompletedEvent | ProcessStopRequestedEvent | ProcessLostEvent;
