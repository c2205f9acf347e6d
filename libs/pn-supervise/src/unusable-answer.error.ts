// How much of an unexpected error's own message is shown.
const MAX_SHOWN = 200;

/**
 * The server answered, but not as the service does: a 2xx whose body is not JSON (a wrong
 * `--server`, a proxy's page), or another answer the client could not read. Neither a refusal
 * (nothing says the record was refused) nor an outage (retrying would get the same answer):
 * reported in one line, with exit status 2; a record's entry is kept, not marked refused, so a
 * later run sends it again with the same ids.
 */
export class UnusableAnswerError extends Error {
  override readonly name = 'UnusableAnswerError';
  readonly code = 'unusable_answer';

  constructor(
    /** What was sent: `the started record`, `the completion notification`, ... */
    readonly what: string,
    error: unknown,
  ) {
    super(UnusableAnswerError.describe(what, error), { cause: error });
  }

  /**
   * One line saying that the answer to `what` could not be read, never quoting its body: a
   * `SyntaxError` from parsing it (whose message does) is said to be "not JSON".
   */
  static describe(what: string, error: unknown): string {
    let answer = 'with a body that is not JSON';
    if (!(error instanceof SyntaxError)) {
      const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
      // Printable ASCII only: the message may quote what the server sent.
      answer = `with something the client could not read (${message.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_SHOWN)})`;
    }
    return `the server answered ${what} ${answer}: is --server the service's base URL?`;
  }
}
