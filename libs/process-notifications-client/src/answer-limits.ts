/*
 * How much of the server's answers the client reads at most (issue 45): past these it stops
 * reading and fails the call with a BadAnswerError, so that a hostile or broken server cannot
 * exhaust its memory. The Python client has the same defaults (`_base.py`).
 */

/**
 * Default `maxAnswerBytes`: 64 MiB. The largest legitimate answer is a journal page of
 * `MAX_JOURNAL_PAGE` (1000) records, each a body of at most `MAX_BODY_BYTES` (16 KiB) and its
 * envelope: about 17 MiB.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Default `maxEventBytes`: 1 MiB. An event carries one journal record: at most about 17 KiB. */
export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

/** The UTF-8 length of `text`, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // Each half of a surrogate pair counts 2: the pair is 4 bytes.
    bytes += unit < 0x80 ? 1 : unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}
