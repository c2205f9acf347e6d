import {
  NetworkError,
  ProblemError,
  type CallOptions,
  type ProcessNotificationsClient,
  type RetryNotice,
} from 'process-notifications-client';
import { UnusableAnswerError } from './unusable-answer.error.js';

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
 * The check before a command runs: `GET /v1/sessions/:sid` and `GET /v1/sessions/:sid/loops/:lid`
 * with the supervisor's token answer 200 only for a token of that session (or the admin token)
 * and a loop of it. A closed session answers 200 to the admin token (its tokens get 401), a
 * stopped or foreign loop answers 200 too, but none would take a record, so they are refused as
 * well. A 2xx answer that is not the service's JSON (a wrong `--server`) is refused too. What the
 * server does not answer is retried with the supervisor's backoff, both requests within `waitMs`
 * together; the first such failure is reported through `onWaiting`.
 */
export class LoopAccessChecker {
  constructor(private readonly client: ProcessNotificationsClient) {}

  async check(
    sessionId: string,
    loopId: string,
    options: { readonly waitMs: number; readonly signal: AbortSignal; readonly onWaiting: (notice: RetryNotice) => void },
  ): Promise<LoopAccess> {
    let waiting = false;
    const deadline = Date.now() + options.waitMs;
    const call = (): CallOptions => ({
      retry: true,
      deadlineMs: Math.max(1, deadline - Date.now()),
      signal: options.signal,
      onRetry: (notice) => {
        if (!waiting) options.onWaiting(notice);
        waiting = true;
      },
    });
    try {
      const session = await this.client.getSession(sessionId, call());
      // Its writes would all be answered 409 session_closed, after the command ran.
      if (session.state === 'closed') {
        return {
          kind: 'refused',
          why: `session ${sessionId} is closed (at ${session.closed_at ?? 'an unknown time'}): it takes no more records`,
        };
      }
      const loop = await this.client.getLoop(sessionId, loopId, call());
      if (loop.state !== 'running') return { kind: 'refused', why: `loop ${loopId} is ${loop.state}: no loop would take the notification` };
      if (loop.engine !== 'native') {
        return { kind: 'refused', why: `loop ${loopId} is a ${loop.engine} loop: the server takes no notification for it` };
      }
      return { kind: 'open' };
    } catch (error) {
      if (options.signal.aborted) return { kind: 'aborted' };
      if (error instanceof NetworkError) return { kind: 'no_answer', why: error.message };
      if (!(error instanceof ProblemError)) return { kind: 'refused', why: UnusableAnswerError.describe('the check', error) };
      const answer = `${error.status} ${error.code}: ${error.detail}`;
      // What a retry would change (an outage, a node without the lease) is not a refusal.
      if (error.status === 429 || error.status >= 500) return { kind: 'no_answer', why: answer };
      return { kind: 'refused', why: `the server refused the token, session or loop (${answer})` };
    }
  }
}
