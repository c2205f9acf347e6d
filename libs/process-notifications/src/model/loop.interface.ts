import type { LoopEngine, LoopState } from '../vocabulary/process-vocabulary.js';

/**
 * A loop as persisted: which loop of which session, its engine and whether it was stopped. What
 * it holds at run time (its pending set) is its actor's, `ProcessLoop`, built from this.
 */
export interface Loop {
  /** Lower-case canonical UUID of its session. */
  readonly sessionId: string;
  /** Lower-case canonical UUID, unique within the session. */
  readonly loopId: string;
  readonly engine: LoopEngine;
  readonly state: LoopState;
  /** When it was opened (ISO 8601). */
  readonly createdAt: string;
}
