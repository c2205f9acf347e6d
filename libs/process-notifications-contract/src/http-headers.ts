/** The headers the contract gives a meaning to (section 8), as the API spells them. */

/** `true` on an answer to an identical retry: an append that wrote nothing new. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** On `delivery_stopped`, `journal_unavailable`, `owner_unavailable` and `stream_limit_reached`: seconds to wait before retrying. */
export const RETRY_AFTER_HEADER = 'Retry-After';

/** Sent by a client resuming an event stream: the sequence of the last event it read. */
export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';
