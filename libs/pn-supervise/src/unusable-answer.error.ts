import { BadAnswerError, type BadAnswerCode } from 'process-notifications-client';

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

  // How each of the client's bad answers is told, in words that quote nothing of the answer.
  private static readonly WHAT_WAS_WRONG: Readonly<Record<BadAnswerCode, string>> = {
    answer_not_json: 'with a body that is not JSON',
    event_not_json: 'with an event that is not JSON',
    answer_too_large: 'with a body larger than the client reads',
    event_too_large: 'with an event larger than the client reads',
  };

  constructor(
    /** What was sent: `the started record`, `the completion notification`, ... */
    readonly what: string,
    error: unknown,
  ) {
    super(UnusableAnswerError.describe(what, error), { cause: error });
  }

  /**
   * One line saying that the answer to `what` could not be read, never quoting its body: the
   * client's {@link BadAnswerError} is named by its code (a parse error's message quotes the body).
   */
  static describe(what: string, error: unknown): string {
    let answer: string;
    if (error instanceof BadAnswerError) {
      answer = UnusableAnswerError.WHAT_WAS_WRONG[error.code];
    } else if (error instanceof SyntaxError) {
      answer = UnusableAnswerError.WHAT_WAS_WRONG.answer_not_json;
    } else {
      const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
      // Printable ASCII only: the message may quote what the server sent.
      answer = `with something the client could not read (${message.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_SHOWN)})`;
    }
    return `the server answered ${what} ${answer}: is --server the service's base URL?`;
  }
}
