import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ProcessNotificationsService, type JournalRecordView, type LoopEventView } from 'nestjs-process-notifications';
import { Observable, ReplaySubject, takeUntil } from 'rxjs';
import { SERVER_CONFIG, type ServerConfig } from '../config/server-config.js';
import { HttpProblemError } from '../http/http-problem.error.js';
import { LoopStreamReader } from './loop-stream-reader.js';

// Journal records read per query while catching up.
const CATCH_UP_PAGE = 500;

// The admin token's streams are counted together, apart from every session's.
const ADMIN_STREAMS = Symbol('admin streams');

/**
 * A session's journal as one stream: the records after a sequence, read from the database, and
 * read again whenever the journal says the session has new ones (committed by this node or, on
 * PostgreSQL, any other), with no gap and no repeat, across a change of the session's owner.
 * Ids are taken as given: normalised where they entered, by the routes' `UuidParamPipe`, so a
 * session's streams are counted together however its id was spelled.
 */
@Injectable()
export class SessionEventStream implements OnModuleDestroy {
  // Replays, so a stream opened after shutdown began ends at once too.
  private readonly shutdown$ = new ReplaySubject<void>(1);
  // Open streams of session tokens by session, its SSE streams and every loop's stream together
  // (issue 45): one session must not hold every socket and subscription, however many loops it
  // has. The admin token's streams (the console's) are counted apart, over all sessions, so an
  // operator's tabs never take a session's own clients' places.
  private readonly open = new Map<string, number>();
  private adminOpen = 0;
  // The one reader of every loop stream open on this node, of every session.
  private readonly loopReader: LoopStreamReader;

  constructor(
    private readonly service: ProcessNotificationsService,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {
    this.loopReader = new LoopStreamReader(service, CATCH_UP_PAGE);
  }

  /**
   * Records of `sessionId` with a sequence above `after`, in order; completes at shutdown.
   * Throws `stream_limit_reached` when the session already has its most open streams (`admin`:
   * when the admin token already has its most open streams on this node). `drained`, when given,
   * is awaited before each page is read, so a catch-up goes at the pace its reader takes it
   * rather than queueing the whole journal for a slow one.
   */
  recordsAfter(sessionId: string, after: number, admin = false, drained?: () => Promise<void>): Observable<JournalRecordView> {
    const counted = this.place(sessionId, admin);
    return this.follow(counted, after, this.service.journalChanges(sessionId), async (last) => {
      if (drained) await drained();
      const page = await this.service.readJournal(sessionId, last, CATCH_UP_PAGE);
      const items = page.filter((record) => record.sequence > last);
      return { items, last: items.at(-1)?.sequence ?? last, more: page.length === CATCH_UP_PAGE };
    });
  }

  /**
   * A loop's events (issue 37) after `after`, in order: read from the database after the last
   * record looked at, and again whenever the journal says the session may have new records, so
   * nothing is skipped or repeated; completes at shutdown. A node's open loop streams, of all
   * sessions, share their reads ({@link LoopStreamReader}, issue 46). Open streams count against
   * the session's bound together with its own streams (`admin`: the admin token's bound),
   * whatever loop they follow (`stream_limit_reached`).
   */
  loopEventsAfter(sessionId: string, loopId: string, after: number, admin = false): Observable<LoopEventView> {
    const counted = this.place(sessionId, admin);
    return new Observable<LoopEventView>((subscriber) => {
      this.count(counted, 1);
      const leave = this.loopReader.follow(sessionId, loopId, after, subscriber);
      return () => {
        leave();
        this.count(counted, -1);
      };
    }).pipe(takeUntil(this.shutdown$));
  }

  /** Open streams of `sessionId`'s own token on this node, its loops' included (the admin token's are counted apart). */
  openStreams(sessionId: string): number {
    return this.open.get(sessionId) ?? 0;
  }

  // Where a new stream is counted, or `stream_limit_reached` when that bound is full.
  private place(sessionId: string, admin: boolean): string | typeof ADMIN_STREAMS {
    if (admin) {
      if (this.adminOpen >= this.config.maxAdminStreams) {
        throw new HttpProblemError(
          'stream_limit_reached',
          `The admin token already has ${this.config.maxAdminStreams} open event streams on this node; close one first.`,
        );
      }
      return ADMIN_STREAMS;
    }
    if ((this.open.get(sessionId) ?? 0) >= this.config.maxStreamsPerSession) {
      throw new HttpProblemError(
        'stream_limit_reached',
        `The session already has ${this.config.maxStreamsPerSession} open event streams (its loops' included); close one first.`,
      );
    }
    return sessionId;
  }

  // Open streams under `key`: a key without streams is forgotten.
  private count(key: string | typeof ADMIN_STREAMS, change: 1 | -1): void {
    if (key === ADMIN_STREAMS) {
      this.adminOpen += change;
      return;
    }
    const left = (this.open.get(key) ?? 0) + change;
    if (left > 0) this.open.set(key, left);
    else this.open.delete(key);
  }

  /**
   * Everything after `after` that `readPage` reads, then again at every hint, counted under
   * `counted` while open. The journal is the only source, so the stream cannot skip or repeat a
   * record, whichever node committed it; a hint that comes during a read makes one more read.
   */
  private follow<T>(
    counted: string | typeof ADMIN_STREAMS,
    after: number,
    hints$: Observable<unknown>,
    readPage: (last: number) => Promise<{ items: readonly T[]; last: number; more: boolean }>,
  ): Observable<T> {
    return new Observable<T>((subscriber) => {
      this.count(counted, 1);
      let last = after;
      let reading = false;
      let readAgain = false;
      const read = async (): Promise<void> => {
        if (reading) {
          readAgain = true;
          return;
        }
        reading = true;
        try {
          do {
            readAgain = false;
            for (;;) {
              const page = await readPage(last);
              if (subscriber.closed) return;
              last = page.last;
              for (const item of page.items) subscriber.next(item);
              if (!page.more) break;
            }
          } while (readAgain && !subscriber.closed);
        } finally {
          reading = false;
        }
      };
      const fail = (error: unknown): void => subscriber.error(error);
      // Subscribed before the first read, so nothing committed in between is missed.
      const hints = hints$.subscribe({ next: () => void read().catch(fail), error: fail });
      read().catch(fail);
      return () => {
        hints.unsubscribe();
        this.count(counted, -1);
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
