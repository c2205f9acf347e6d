import type { JournalRecordEntity } from './persistence/journal-record.entity.js';
import type { PendingProcessNotification } from './loops/pending-process-notification.interface.js';
import type { ProcessLoop } from './loops/process-loop.js';
import type { ProcessOutcome } from './outcomes/process-outcome.interface.js';
import type { JournalKind, LoopEngine, LoopState, SessionState } from './vocabulary/process-vocabulary.js';

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
  /** `closed` once closed: readable, takes no more writes, and no token opens it. */
  readonly state: SessionState;
  /** When it was closed (ISO 8601), null while open. */
  readonly closedAt: string | null;
  readonly loops: LoopView[];
}

/** A session's new bearer token, shown once (see `ProcessNotificationsService.rotateSessionToken`). */
export interface SessionTokenView {
  readonly sessionId: string;
  readonly token: string;
}

/** A closed session (see `ProcessNotificationsService.closeSession`). */
export interface ClosedSessionView {
  readonly sessionId: string;
  readonly state: 'closed';
  readonly closedAt: string;
}

/** A pending notification as the pending views show it: with how its process ended, once known. */
export interface PendingNotificationView extends PendingProcessNotification {
  /**
   * The first `completed` or `lost` record of the session naming this `command_id` (section
   * 14); `null` until one is journaled, whichever of the two came first.
   */
  readonly outcome: ProcessOutcome | null;
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

// The library's mappers to the views above: the one place where what it holds becomes what it returns.

export function loopView(loop: ProcessLoop): LoopView {
  return {
    loopId: loop.loopId,
    sessionId: loop.sessionId,
    engine: loop.engine,
    state: loop.state,
    capacity: loop.capacity,
    pending: loop.size,
  };
}

export function recordView(record: JournalRecordEntity): JournalRecordView {
  return {
    sequence: record.sequence,
    sessionId: record.sessionId,
    kind: record.kind,
    loopId: record.loopId,
    idempotencyId: record.idempotencyId,
    causeCommandId: record.causeCommandId,
    createdAt: record.createdAt,
    payload: JSON.parse(record.payload) as Record<string, unknown> | null,
  };
}
