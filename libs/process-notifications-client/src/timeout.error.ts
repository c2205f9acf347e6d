/**
 * {@link ProcessNotificationsClient.waitForCompletion} gave up: no notification came in time.
 * Named `TimeoutError`, as a timed-out `AbortSignal.timeout()` reason is.
 */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';

  constructor(
    message: string,
    /** How long it waited, in milliseconds. */
    readonly timeoutMs: number,
  ) {
    super(message);
  }
}
