/*
 * The span and attribute names of spec section 13, defined once: the handlers, the journal
 * writer, the tests and the docs all read them from here.
 */

/** Names of the spans the library creates. */
export const SPAN_NAMES = {
  /** One delivery of a completion notification, from validation to the loop's answer. */
  notify: 'pn.notify',
  /** One lifecycle record, from validation to its append. */
  lifecycle: 'pn.lifecycle',
  /** One caller's append: from queueing to the answer of the batch that committed it. */
  journalAppend: 'pn.journal.append',
  /** One journal transaction (group commit), linked to every caller's span it committed for. */
  journalCommit: 'pn.journal.commit',
  /** Handing a journaled notification to its loop and waiting for the answer. */
  dispatch: 'pn.dispatch',
} as const;

/** Names of the attributes on those spans. Never a token, a payload or a command line. */
export const SPAN_ATTRIBUTES = {
  sessionId: 'pn.session_id',
  loopId: 'pn.loop_id',
  commandId: 'pn.command_id',
  eventId: 'pn.event_id',
  /** The record's journal sequence; on a collision, the original's. */
  sequence: 'pn.sequence',
  disposition: 'pn.disposition',
  /** The problem's `code`, on a refusal. */
  errorCode: 'pn.error_code',
  /** Whether this call wrote the record (false: an identical retry). */
  appended: 'pn.appended',
  /** The lifecycle record's kind. */
  kind: 'pn.kind',
  /** Units of work one journal transaction committed. */
  batchSize: 'pn.batch.size',
} as const;
