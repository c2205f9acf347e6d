import { exhaustMap, filter, from, interval, takeUntil, type Observable } from 'rxjs';

/**
 * `events` of a stream opened with a session token, ended once that token no longer opens the
 * session (it was rotated, or the session closed): asked every `everyMs` (the keep-alive
 * interval), so a revoked token does not go on reading a stream it opened before. A check that
 * fails (the database away) leaves the stream open; the next one asks again.
 */
export function untilRevoked<T>(events: Observable<T>, stillOpens: () => Promise<boolean>, everyMs: number): Observable<T> {
  const revoked$ = interval(everyMs).pipe(
    exhaustMap(() => from(stillOpens().catch(() => true))),
    filter((opens) => !opens),
  );
  return events.pipe(takeUntil(revoked$));
}
