import type { PendingNotification } from 'process-notifications-contract';

/** What a {@link LoopWorker} reports to its `onError`: the handler threw, or the consume after it failed. */
export const LOOP_WORKER_FAILURES = ['handler_failed', 'consume_failed'] as const;

/** One of {@link LOOP_WORKER_FAILURES}. */
export type LoopWorkerFailure = (typeof LOOP_WORKER_FAILURES)[number];

/**
 * A notification a {@link LoopWorker} handed out and did not consume: its handler threw
 * (`handler_failed`), or its handler returned and the consume failed (`consume_failed`; it may
 * have committed all the same). Either way the notification may still be pending: the next run
 * of a worker on the loop is given it again. `cause` is what was thrown.
 */
export class LoopWorkerError extends Error {
  override readonly name = 'LoopWorkerError';

  constructor(
    /** Stable: which step failed. */
    readonly code: LoopWorkerFailure,
    /** The notification the step was for. */
    readonly notification: PendingNotification,
    options: { cause: unknown },
  ) {
    const what = code === 'handler_failed' ? 'the handler threw' : 'the consume failed';
    super(
      `${what} for notification ${notification.command_id}: ${String((options.cause as Error | undefined)?.message ?? options.cause)}`,
      options,
    );
  }
}
