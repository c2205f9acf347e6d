/**
 * Why `pn` gives up, each with its exit status (spec section 16): a usage error, a server that
 * does not answer (EX_UNAVAILABLE), a refusal (a 4xx answer), a wait that ran out (EX_TEMPFAIL),
 * and a supervisor that did not start the command for `pn run` (its own check, or its options,
 * refused: its status 2). Defined once: the commands throw a code, `pn` exits with its status.
 */
export const PN_ERROR_STATUSES = {
  usage: 2,
  refused: 1,
  no_answer: 69,
  wait_timeout: 75,
  not_started: 2,
} as const;

/** The stable code of a {@link PnError}. */
export type PnErrorCode = keyof typeof PN_ERROR_STATUSES;

/** A failure `pn` reports in one line on stderr before it exits with the code's status. */
export class PnError extends Error {
  override readonly name = 'PnError';

  constructor(
    readonly code: PnErrorCode,
    message: string,
  ) {
    super(message);
  }

  /** The exit status of `pn` for this failure. */
  get status(): number {
    return PN_ERROR_STATUSES[this.code];
  }
}
