import type { JournalRecord } from './model/journal-record.interface.js';
import type { LoopStreamOutcome, LoopStreamRow } from './persistence/pages/loop-stream-rows.js';
import type { ProcessCompletionNotification } from './model/process-completion-notification.interface.js';
import type { PendingProcessNotification } from './model/pending-process-notification.interface.js';
import type { ProcessLoop } from './loops/process-loop.js';
import type { ProcessOutcome } from './model/process-outcome.interface.js';
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

/**
 * One event of a loop's stream (issue 37), at its journal `sequence`: a notification of the loop
 * not consumed when it was read (with its outcome if that was journaled before it); the outcome of
 * a notification of the loop journaled after it; a notification of the loop consumed.
 */
export type LoopEventView =
  | { readonly kind: 'notification'; readonly sequence: number; readonly notification: PendingNotificationView }
  | { readonly kind: 'outcome'; readonly sequence: number; readonly notification: PendingNotificationView }
  | { readonly kind: 'consumed'; readonly sequence: number; readonly commandId: string };

/** One read of a loop's stream: its events, and the sequence to read on after. */
export interface LoopEventsPage {
  readonly events: LoopEventView[];
  readonly last: number;
  /** True when the read stopped at its limit: read on at once. */
  readonly more: boolean;
}

/** One read of every loop's stream of a session: each event with its loop. */
export interface SessionLoopEventsPage {
  readonly events: Array<{ readonly loopId: string; readonly event: LoopEventView }>;
  readonly last: number;
  /** True when the read stopped at its limit: read on at once. */
  readonly more: boolean;
}

/**
 * One range of {@link ProcessNotificationsService.readLoopStreams}: a session's loop events after
 * `after`, of one loop (`loopId`) or of every loop of the session (no `loopId`).
 */
export interface LoopStreamRangeRequest {
  readonly sessionId: string;
  readonly loopId?: string;
  readonly after: number;
}

/** One read of several sessions' loop streams: each event with its range (an index) and loop. */
export interface LoopStreamsPage {
  readonly events: Array<{ readonly range: number; readonly loopId: string; readonly event: LoopEventView }>;
  /** Per range, the sequence to read it on after. */
  readonly last: number[];
  /** True when the read stopped at its limit: read on at once. */
  readonly more: boolean;
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

export function recordView(record: JournalRecord): JournalRecordView {
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

function streamOutcome(outcome: LoopStreamOutcome): ProcessOutcome {
  return {
    eventId: outcome.eventId,
    kind: outcome.kind,
    sequence: outcome.sequence,
    hasExitCode: outcome.hasExitCode,
    exitCode: outcome.exitCode,
    diagnostic: outcome.diagnostic,
    signal: outcome.signal,
    processStartedAt: outcome.processStartedAt,
    processFinishedAt: outcome.processFinishedAt,
  };
}

// Only a validated notification is journaled as process_notification, and retention keeps the
// payload of an unconsumed one (a consumed one is not streamed).
function notificationOf(json: string, sequence: number, outcome: LoopStreamOutcome | null): PendingNotificationView {
  const payload = JSON.parse(json) as ProcessCompletionNotification;
  return {
    commandId: payload.command_id,
    sessionId: payload.session_id,
    loopId: payload.loop_id,
    processHandle: payload.process_handle,
    state: payload.state,
    reason: payload.reason,
    sequence,
    outcome: outcome === null ? null : streamOutcome(outcome),
  };
}

export function loopEventView(row: LoopStreamRow): LoopEventView {
  switch (row.kind) {
    case 'notification':
      return { kind: 'notification', sequence: row.sequence, notification: notificationOf(row.payload, row.sequence, row.outcome) };
    case 'outcome':
      return { kind: 'outcome', sequence: row.sequence, notification: notificationOf(row.payload, row.notificationSequence, row.outcome) };
    case 'consumed':
      return row;
  }
}
