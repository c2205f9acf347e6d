import type { LoopEventView, LoopEventsPage, SessionLoopEventsPage } from 'nestjs-process-notifications';
import type { Observable, Subscriber, Subscription } from 'rxjs';

/** What the reader needs of the library: the two reads of loop streams, and the session's hints. */
export interface LoopEventsSource {
  readLoopEvents(sessionId: string, loopId: string, after: number, limit: number): Promise<LoopEventsPage>;
  readSessionLoopEvents(sessionId: string, after: number, limit: number): Promise<SessionLoopEventsPage>;
  journalChanges(sessionId: string): Observable<void>;
}

// One open loop stream: its loop, where it has read to, and where its events go.
interface Follower {
  readonly loopId: string;
  last: number;
  readonly subscriber: Subscriber<LoopEventView>;
}

/**
 * Reads the loop streams a node has open for one session (issue 37): one read of the journal
 * after each hint serves all of them, where a read per stream made a busy session with 16 loops
 * read 16 times per commit. Each stream still gets exactly what a read of its own loop gives over
 * the same range (the session read's rows of a loop are that loop's page), from where it stands:
 * a read starts at the lowest position of the streams, and each stream takes only its loop's
 * events after its own position, then moves to where the read ended. With one stream the read is
 * of its loop alone (its own index range), so a lone loop never reads its neighbours' records.
 */
export class SessionLoopReader {
  private readonly followers = new Set<Follower>();
  private readonly hints: Subscription;
  private reading = false;
  private readAgain = false;
  private scheduled = false;

  constructor(
    private readonly sessionId: string,
    private readonly source: LoopEventsSource,
    private readonly pageSize: number,
    private readonly emptied: () => void,
  ) {
    // Subscribed before the first read, so nothing committed in between is missed.
    this.hints = source.journalChanges(sessionId).subscribe({ next: () => this.schedule(), error: (error) => this.fail(error) });
  }

  /** Streams `loopId`'s events after `after` to `subscriber` until it unsubscribes (the returned teardown). */
  follow(loopId: string, after: number, subscriber: Subscriber<LoopEventView>): () => void {
    const follower: Follower = { loopId, last: after, subscriber };
    this.followers.add(follower);
    this.schedule();
    return () => {
      this.followers.delete(follower);
      if (this.followers.size === 0) {
        this.hints.unsubscribe();
        this.emptied();
      }
    };
  }

  // A commit hints once per record: the hints of one commit make one read (a microtask later);
  // a hint during a read makes one more, since that read may have begun before the commit.
  private schedule(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.read().catch((error: unknown) => this.fail(error));
    });
  }

  private async read(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.readAgain = false;
        for (;;) {
          // Streams that join during a read wait for the next: this read may start past them.
          const followers = [...this.followers];
          if (followers.length === 0) return;
          const from = Math.min(...followers.map((follower) => follower.last));
          const page = await this.readPage(followers, from);
          for (const follower of followers) {
            if (follower.subscriber.closed) continue;
            for (const event of page.events.get(follower.loopId) ?? []) {
              if (event.sequence > follower.last) follower.subscriber.next(event);
            }
            follower.last = Math.max(follower.last, page.last);
          }
          if (!page.more) break;
        }
      } while (this.readAgain && this.followers.size > 0);
    } finally {
      this.reading = false;
    }
  }

  private async readPage(
    followers: readonly Follower[],
    from: number,
  ): Promise<{ events: Map<string, LoopEventView[]>; last: number; more: boolean }> {
    if (followers.length === 1) {
      const { loopId } = followers[0]!;
      const page = await this.source.readLoopEvents(this.sessionId, loopId, from, this.pageSize);
      return { events: new Map([[loopId, page.events]]), last: page.last, more: page.more };
    }
    const page = await this.source.readSessionLoopEvents(this.sessionId, from, this.pageSize);
    const events = new Map<string, LoopEventView[]>();
    for (const { loopId, event } of page.events) {
      const list = events.get(loopId);
      if (list) list.push(event);
      else events.set(loopId, [event]);
    }
    return { events, last: page.last, more: page.more };
  }

  // A failed read ends every stream of the session (each would have failed its own read).
  private fail(error: unknown): void {
    for (const follower of [...this.followers]) follower.subscriber.error(error);
  }
}
