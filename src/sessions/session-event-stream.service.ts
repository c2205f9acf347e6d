import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ProcessNotificationsService, type JournalRecordView } from '#process-notifications';
import { Observable, ReplaySubject, takeUntil } from 'rxjs';

// Journal records read per query while catching up.
const CATCH_UP_PAGE = 500;

/**
 * A session's journal as one stream: the records after a sequence from the database, then the
 * live ones as they commit, with no gap and no repeat between the two.
 */
@Injectable()
export class SessionEventStream implements OnModuleDestroy {
  // Replays, so a stream opened after shutdown began ends at once too.
  private readonly shutdown$ = new ReplaySubject<void>(1);

  constructor(private readonly service: ProcessNotificationsService) {}

  /** Records of `sessionId` with a sequence above `after`, in order; completes at shutdown. */
  recordsAfter(sessionId: string, after: number): Observable<JournalRecordView> {
    return new Observable<JournalRecordView>((subscriber) => {
      let last = after;
      // Live records wait here until the catch-up from the database is done.
      let waiting: JournalRecordView[] | undefined = [];
      const emit = (record: JournalRecordView): void => {
        if (record.sequence <= last) return;
        last = record.sequence;
        subscriber.next(record);
      };
      // Subscribed before the first page is read, so nothing committed in between is missed.
      const live = this.service.recordsOf(sessionId).subscribe({
        next: (record) => (waiting ? waiting.push(record) : emit(record)),
        error: (error: unknown) => subscriber.error(error),
      });
      const catchUp = async (): Promise<void> => {
        for (;;) {
          const page = await this.service.readJournal(sessionId, last, CATCH_UP_PAGE);
          if (subscriber.closed) return;
          page.forEach(emit);
          if (page.length < CATCH_UP_PAGE) break;
        }
        const caughtUp = waiting ?? [];
        waiting = undefined;
        caughtUp.forEach(emit);
      };
      catchUp().catch((error: unknown) => subscriber.error(error));
      return () => live.unsubscribe();
    }).pipe(takeUntil(this.shutdown$));
  }

  // Open streams end before the HTTP server closes, so they never hold up a shutdown; one turn
  // of the event loop lets their last chunk reach the socket before it is closed.
  async onModuleDestroy(): Promise<void> {
    this.shutdown$.next();
    this.shutdown$.complete();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
