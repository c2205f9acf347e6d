import type { JournalKind, LoopEngine, LoopState } from './vocabulary/process-vocabulary.js';

/** A loop as embedders see it. */
export interface LoopView {
  readonly loopId: string;
  readonly sessionId: string;
  readonly engine: LoopEngine;
  readonly state: LoopState;
  readonly capacity: number;
  /** Notifications in the pending set now. */
  readonly pending: number;
}

export interface SessionView {
  readonly sessionId: string;
  readonly loops: LoopView[];
}

/** A journal record as embedders see it, payload parsed. */
export interface JournalRecordView {
  readonly sequence: number;
  readonly sessionId: string;
  readonly kind: JournalKind;
  readonly loopId: string | null;
  readonly idempotencyId: string;
  readonly causeCommandId: string | null;
  readonly createdAt: string;
  /** The canonical payload; `null` once retention dropped it. */
  readonly payload: Record<string, unknown> | null;
}
