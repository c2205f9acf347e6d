import type { MessageEvent } from '@nestjs/common';
import { Observable } from 'rxjs';

/** The SSE comment sent to keep an idle stream open: `: keep-alive`. */
export const KEEP_ALIVE: MessageEvent = Object.freeze({ comment: 'keep-alive' });

/**
 * `events`, with a {@link KEEP_ALIVE} comment every `everyMs` so proxies and load balancers do
 * not close a stream that has been quiet for a while. Ends when `events` ends.
 */
export function withKeepAlive(events: Observable<MessageEvent>, everyMs: number): Observable<MessageEvent> {
  return new Observable<MessageEvent>((subscriber) => {
    const timer = setInterval(() => subscriber.next(KEEP_ALIVE), everyMs);
    const subscription = events.subscribe(subscriber);
    return () => {
      clearInterval(timer);
      subscription.unsubscribe();
    };
  });
}
