import type { JournalRecordEntity } from './journal-record.entity.js';

/** The PostgreSQL channel every committed batch notifies, with the sessions it wrote. */
export const JOURNAL_CHANNEL = 'pn_journal';
/** A notification payload meaning "any session may have new records". */
export const ANY_SESSION = '*';
// NOTIFY payloads must stay under 8000 bytes.
const MAX_NOTIFY_PAYLOAD = 7_900;
// Marks the last element of a payload as the node that committed the batch (ids never hold it).
const ORIGIN_MARK = '@';

/**
 * The payload of the hint for a batch that `origin` (a node id) committed, which wrote `records`:
 * the sessions written, comma-separated, then `@origin`; or {@link ANY_SESSION} when the list does
 * not fit; undefined when nothing was written. A reader that splits the payload on commas and
 * looks for its session ids (as earlier releases do) finds the origin to be no session.
 */
export function commitHintPayload(records: readonly JournalRecordEntity[], origin?: string): string | undefined {
  const sessions = new Set(records.map((record) => record.sessionId));
  if (sessions.size === 0) return undefined;
  const listed = [...sessions, ...(origin === undefined ? [] : [`${ORIGIN_MARK}${origin}`])].join(',');
  return listed.length <= MAX_NOTIFY_PAYLOAD ? listed : ANY_SESSION;
}

/**
 * The sessions a hint's payload names for the node `self`: null for "any session"; none when
 * `self` committed the batch, since its own commits are announced in the process as they
 * commit (a re-read on its NOTIFY found nothing, and made every commit read twice).
 */
export function hintedSessions(payload: string, self: string): readonly string[] | null {
  if (payload === ANY_SESSION) return null;
  const listed = payload.split(',');
  const origin = listed.at(-1)!;
  if (!origin.startsWith(ORIGIN_MARK)) return listed;
  return origin.slice(ORIGIN_MARK.length) === self ? [] : listed.slice(0, -1);
}

/** A NOTIFY to send inside a transaction: delivered only if it commits. */
export interface JournalNotice {
  readonly channel: string;
  readonly payload: string;
}

/**
 * The commit hint (PostgreSQL): one NOTIFY per batch, sent inside its transaction so it is
 * delivered only if the batch commits (NOTIFY serializes commits, so never one per record), in
 * the statement of the batch's admin counts (`JournalCounters.apply`: one round trip for both).
 * Readers on every node take it as a wake-up, never as data. None on one node (SQLite): the
 * writer is given {@link NO_COMMIT_HINT} there, as its topology says.
 */
export class JournalCommitHint {
  /** @param origin this node's id, named in each hint so that it can skip its own */
  constructor(private readonly origin: string) {}

  /** The NOTIFY of a batch that wrote `records`, or undefined when it wrote nothing. */
  notice(records: readonly JournalRecordEntity[]): JournalNotice | undefined {
    const payload = commitHintPayload(records, this.origin);
    return payload === undefined ? undefined : { channel: JOURNAL_CHANNEL, payload };
  }
}

/** The commit hint of one node: nobody else to tell. */
export const NO_COMMIT_HINT: Pick<JournalCommitHint, 'notice'> = { notice: () => undefined };
