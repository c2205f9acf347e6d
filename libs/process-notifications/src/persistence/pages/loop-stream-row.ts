import type { ProcessOutcomeEntity } from '../outcomes/process-outcome.entity.js';
import { CONSUMED_KIND } from '../journal/journal-record.entity.js';

/*
 * A loop stream read's rows as the stream gives them: the types every read answers with, and what
 * one row of the store becomes (shared by LoopStreamRows' statements and the tail walk's ranges).
 */

/** An outcome as the stream reads it (the `pn_process_outcomes` row, without its session). */
export type LoopStreamOutcome = Omit<ProcessOutcomeEntity, 'sessionId'>;

/** One item of a loop's event stream, as read from the journal (see `LoopStreamRows`). */
export type LoopStreamRow =
  | {
      readonly kind: 'notification';
      readonly sequence: number;
      /** The notification's canonical JSON payload. */
      readonly payload: string;
      /** Its outcome when that was journaled before it, else null (it then comes as an `outcome` row). */
      readonly outcome: LoopStreamOutcome | null;
    }
  | {
      readonly kind: 'outcome';
      readonly sequence: number;
      /** The notification's sequence and canonical JSON payload. */
      readonly notificationSequence: number;
      readonly payload: string;
      readonly outcome: LoopStreamOutcome;
    }
  | { readonly kind: 'consumed'; readonly sequence: number; readonly commandId: string };

/** One read of a loop's stream: its rows, and the last sequence the read looked at (skipped or not). */
export interface LoopStreamPage {
  readonly rows: LoopStreamRow[];
  /** Pass as `after` to read on; the read's `after` when it found nothing. */
  readonly last: number;
  /** True when the read stopped at its limit: more records may follow at once. */
  readonly more: boolean;
}

/** One read of every loop's stream of a session: each row with its loop. */
export interface SessionLoopStreamPage extends Omit<LoopStreamPage, 'rows'> {
  readonly rows: Array<{ readonly loopId: string; readonly row: LoopStreamRow }>;
}

/**
 * One range of a `LoopStreamRows.rangesPage` read: a session's records after `after`, of
 * one loop (`loopId`) or of every loop of the session (`loopId` null).
 */
export interface LoopStreamRange {
  readonly sessionId: string;
  readonly loopId: string | null;
  readonly after: number;
}

/** One read of several ranges: each row with its range (an index into the ranges) and loop. */
export interface LoopStreamRangesPage {
  readonly rows: Array<{ readonly range: number; readonly loopId: string; readonly row: LoopStreamRow }>;
  /** Per range, where to read it on: its last record looked at, or its `after` when the read found none. */
  readonly last: number[];
  /** True when the read stopped at its limit: more records of some range may follow at once. */
  readonly more: boolean;
}

/** A row of a stream read, as the driver gives it. */
export type Row = Record<string, string | number | boolean | null>;

/**
 * `LoopStreamRows.rangesPage`'s answer from one walk of the journal's tail (`rows`, read
 * from the lowest range's position): each row given to every range it falls in, as that range's
 * own read gives it. Only for a store that one connection writes (SQLite): its commits are in
 * sequence order, so a read that walked up to a sequence saw every record below it, and every
 * range's `last` moves there, past other sessions' records too.
 */
export function tailRanges(rows: readonly Row[], ranges: readonly LoopStreamRange[], limit: number): LoopStreamRangesPage {
  const bySession = new Map<string, number[]>();
  ranges.forEach(({ sessionId }, range) => bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), range]));
  const out: Array<{ range: number; loopId: string; row: LoopStreamRow }> = [];
  for (const row of rows) {
    const loopId = String(row.loop_id);
    for (const range of bySession.get(String(row.session_id)) ?? []) {
      const { loopId: only, after } = ranges[range]!;
      if (Number(row.sequence) <= after || (only !== null && only !== loopId)) continue;
      const item = streamRow(row, loopId);
      if (item) out.push({ range, loopId, row: item });
    }
  }
  const walked = rows.length > 0 ? Number(rows.at(-1)!.sequence) : 0;
  return { rows: out, last: ranges.map(({ after }) => Math.max(after, walked)), more: rows.length === limit };
}

/** What one row of a stream read is to the loop `loopId`, or undefined when it is nothing to it. */
export function streamRow(row: Row, loopId: string): LoopStreamRow | undefined {
  const sequence = Number(row.sequence);
  const outcome = row.o_sequence === null ? null : outcomeOf(row);
  switch (row.kind) {
    case 'process_notification':
      if (row.c_sequence !== null) return undefined;
      return {
        kind: 'notification',
        sequence,
        payload: String(row.payload),
        outcome: outcome && outcome.sequence < sequence ? outcome : null,
      };
    case CONSUMED_KIND:
      return { kind: 'consumed', sequence, commandId: String(row.cause_command_id) };
    default:
      // An outcome record: this record is the outcome, of a notification of this loop before it.
      if (!outcome || outcome.sequence !== sequence || row.n_loop_id !== loopId || Number(row.n_sequence) >= sequence) return undefined;
      return { kind: 'outcome', sequence, notificationSequence: Number(row.n_sequence), payload: String(row.n_payload), outcome };
  }
}

function outcomeOf(row: Row): LoopStreamOutcome {
  return {
    commandId: String(row.o_command_id),
    sequence: Number(row.o_sequence),
    eventId: String(row.o_event_id),
    kind: row.o_kind as ProcessOutcomeEntity['kind'],
    hasExitCode: Boolean(row.o_has_exit_code),
    exitCode: row.o_exit_code === null ? null : Number(row.o_exit_code),
    diagnostic: row.o_diagnostic === null ? null : String(row.o_diagnostic),
    signal: row.o_signal === null ? null : String(row.o_signal),
    processStartedAt: row.o_started === null ? null : String(row.o_started),
    processFinishedAt: row.o_finished === null ? null : String(row.o_finished),
  };
}
