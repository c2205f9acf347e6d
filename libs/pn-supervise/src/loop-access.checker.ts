import { ProblemError, type ProcessNotificationsClient, type RetryNotice } from 'process-notifications-client';

/** What the server said, before the command runs, about the token, session and loop. */
export type LoopAccess =
  /** The loop is running and takes records sent with this token. */
  | { readonly kind: 'open' }
  /** A final answer: records sent with these settings would be refused or taken by no loop. */
  | { readonly kind: 'refused'; readonly why: string }
  /** No answer (network error, 5xx, 429, `owner_unavailable`) until the wait ran out. */
  | { readonly kind: 'no_answer'; readonly why: string }
  /** The supervisor was told to stop while it waited. */
  | { readonly kind: 'aborted' };

/**
 * The check before a command runs: `GET /v1/sessions/:sid/loops/:lid` with the session's token
 * answers 200 only for a token of that session (or the admin token) and a loop of it. A stopped
 * or foreign loop answers 200 too, but would take no notification, so it is refused as well.
 * What the server does not answer is retried with the supervisor's backoff for at most
 * `waitMs`; the first such failure is reported through `onWaiting`.
 */
export class LoopAccessChecker {
  constructor(private readonly client: ProcessNotificationsClient) {}

  async check(
    sessionId: string,
    loopId: string,
    options: { readonly waitMs: number; readonly signal: AbortSignal; readonly onWaiting: (notice: RetryNotice) => void },
  ): Promise<LoopAccess> {
    let waiting = false;
    try {
      const loop = await this.client.getLoop(sessionId, loopId, {
        retry: true,
        deadlineMs: options.waitMs,
        signal: options.signal,
        onRetry: (notice) => {
          if (!waiting) options.onWaiting(notice);
          waiting = true;
        },
      });
      if (loop.state !== 'running') return { kind: 'refused', why: `loop ${loopId} is ${loop.state}: no loop would take the notification` };
      if (loop.engine !== 'native') {
        return { kind: 'refused', why: `loop ${loopId} is a ${loop.engine} loop: the server takes no notification for it` };
      }
      return { kind: 'open' };
    } catch (error) {
      if (options.signal.aborted) return { kind: 'aborted' };
      if (!(error instanceof ProblemError)) return { kind: 'no_answer', why: error instanceof Error ? error.message : String(error) };
      const answer = `${error.status} ${error.code}: ${error.detail}`;
      // What a retry would change (an outage, a node without the lease) is not a refusal.
      if (error.status === 429 || error.status >= 500) return { kind: 'no_answer', why: answer };
      return { kind: 'refused', why: `the server refused the token, session or loop (${answer})` };
    }
  }
}
