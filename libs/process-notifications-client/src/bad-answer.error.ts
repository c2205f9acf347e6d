/**
 * What can be wrong with an answer the client got (issue 45), defined once: an answer or an event
 * larger than the client reads, or a success answer or an event that is not JSON.
 */
export const BAD_ANSWER_CODES = ['answer_too_large', 'event_too_large', 'answer_not_json', 'event_not_json'] as const;

/** One of {@link BAD_ANSWER_CODES}. */
export type BadAnswerCode = (typeof BAD_ANSWER_CODES)[number];

/**
 * The server answered, but not with what the client can take: an answer past `maxAnswerBytes`,
 * an event of a stream past `maxEventBytes`, or a success answer or an event that is not JSON
 * (or, for a batch delivery, not one result per notification, each naming its own).
 * Never retried: the request reached the server (a write may have been applied), and the same
 * server would answer the same again. The client stopped reading at the bound, so a hostile or
 * broken server cannot exhaust it.
 */
export class BadAnswerError extends Error {
  override readonly name = 'BadAnswerError';

  constructor(
    /** The stable code of what was wrong. */
    readonly code: BadAnswerCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** An answer past `maxBytes`. */
  static answerTooLarge(url: string, maxBytes: number): BadAnswerError {
    return new BadAnswerError('answer_too_large', `the answer of ${url} is larger than ${maxBytes} bytes (maxAnswerBytes)`);
  }

  /** An event (or one line) of a stream past `maxBytes`. */
  static eventTooLarge(maxBytes: number): BadAnswerError {
    return new BadAnswerError('event_too_large', `an event of the stream is larger than ${maxBytes} bytes (maxEventBytes)`);
  }
}
