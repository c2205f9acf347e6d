import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ProcessNotificationsService, type JournalRecordView } from 'nestjs-process-notifications';
import { Observable, ReplaySubject, takeUntil } from 'rxjs';
import { SERVER_CONFIG, type ServerConfig } from '../config/server-config.js';
import { HttpProblemError } from '../http/http-problem.error.js';

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
  // Open streams by session, so one session cannot hold every socket and subscription.
  private readonly open = new Map<string, number>();

  constructor(
    private readonly service: ProcessNotificationsService,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {}

  /**
   * Records of `sessionId` with a sequence above `after`, in order; completes at shutdown.
   * Throws `stream_limit_reached` when the session already has its most open streams.
   */
  recordsAfter(sessionId: string, after: number): Observable<JournalRecordView> {
    if ((this.open.get(sessionId) ?? 0) >= this.config.maxStreamsPerSession) {
      throw new HttpProblemError(
        'stream_limit_reached',
        `The session already has ${this.config.maxStreamsPerSession} open event streams; close one first.`,
      );
    }
    return new Observable<JournalRecordView>((subscriber) => {
      this.open.set(sessionId, (this.open.get(sessionId) ?? 0) + 1);
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
      return () => {
        live.unsubscribe();
        const left = (this.open.get(sessionId) ?? 1) - 1;
        if (left > 0) this.open.set(sessionId, left);
        else this.open.delete(sessionId);
      };
    }).pipe(takeUntil(this.shutdown$));
  }

  /**
   * Ends every open stream (and every one opened later), so streams never hold up a shutdown;
   * one turn of the event loop lets their last chunk reach the socket before it is closed.
   */
  async close(): Promise<void> {
    this.shutdown$.next();
    this.shutdown$.complete();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }
}
