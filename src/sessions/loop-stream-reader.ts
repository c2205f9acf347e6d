import type { LoopEventView, LoopStreamRangeRequest, LoopStreamsPage } from 'nestjs-process-notifications';
import type { Observable, Subscriber, Subscription } from 'rxjs';

/** What the reader needs of the library: the one read of many loop streams, and every session's hints. */
export interface LoopStreamsSource {
  readLoopStreams(ranges: readonly LoopStreamRangeRequest[], limit: number): Promise<LoopStreamsPage>;
  journalChangedSessions(): Observable<string | null>;
}

// One open loop stream: its loop, where it has read to, and where its events go.
interface Follower {
  readonly loopId: string;
  last: number;
  readonly subscriber: Subscriber<LoopEventView>;
}

// A session read by one read: its range, and the streams the read serves.
interface SessionRead {
  readonly sessionId: string;
  readonly followers: readonly Follower[];
}

/**
 * Reads every loop stream a node has open, of every session, together (issues 37 and 46): the
 * hints of one commit (of one session or of many) make one read of the journal for all of them,
 * where a reader per session made sixteen sessions with one loop each read sixteen times per
 * commit. The read holds one range per hinted session, from the lowest position of its streams:
 * its one loop's records when its streams all follow one loop (a lone loop never reads its
 * neighbours'), else its loops' records. Each stream takes only its loop's events after its own
 * position, then moves to where its session's range ended, never further: sequences are committed
 * in order within a session only, so another session's higher record says nothing of this one's.
 */
export class LoopStreamReader {
  private readonly sessions = new Map<string, Set<Follower>>();
  // Sessions hinted (or joined) since their last read began: the next read's ranges.
  private readonly hinted = new Set<string>();
  private hints?: Subscription;
  private reading = false;
  private scheduled = false;

  constructor(
    private readonly source: LoopStreamsSource,
    private readonly pageSize: number,
  ) {}

  /** Streams `loopId`'s events of `sessionId` after `after` to `subscriber` until it leaves (the returned teardown). */
  follow(sessionId: string, loopId: string, after: number, subscriber: Subscriber<LoopEventView>): () => void {
    // Subscribed before the first read, so nothing committed in between is missed.
    this.hints ??= this.source.journalChangedSessions().subscribe({
      next: (changed) => this.hint(changed),
      error: (error) => this.failAll(error),
    });
    const follower: Follower = { loopId, last: after, subscriber };
    let followers = this.sessions.get(sessionId);
    if (!followers) this.sessions.set(sessionId, (followers = new Set()));
    followers.add(follower);
    this.hinted.add(sessionId);
    this.schedule();
    return () => {
      followers.delete(follower);
      if (followers.size > 0 || this.sessions.get(sessionId) !== followers) return;
      this.sessions.delete(sessionId);
      this.hinted.delete(sessionId);
      if (this.sessions.size === 0) {
        this.hints?.unsubscribe();
        this.hints = undefined;
      }
    };
  }

  // null: any session may have new records.
  private hint(sessionId: string | null): void {
    if (sessionId === null) for (const followed of this.sessions.keys()) this.hinted.add(followed);
    else if (this.sessions.has(sessionId)) this.hinted.add(sessionId);
    else return;
    this.schedule();
  }

  // A commit hints once per record: the hints of one commit make one read (a microtask later); a
  // hint during a read is read by the same loop, since that read may have begun before the commit.
  private schedule(): void {
    if (this.reading || this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.read();
    });
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      while (this.hinted.size > 0) {
        // Streams that join during a read wait for the next: this read may start past them.
        const reads: SessionRead[] = [];
        for (const sessionId of this.hinted) {
          const followers = [...(this.sessions.get(sessionId) ?? [])];
          if (followers.length > 0) reads.push({ sessionId, followers });
        }
        this.hinted.clear();
        if (reads.length === 0) return;
        try {
          const page = await this.source.readLoopStreams(reads.map(rangeOf), this.pageSize);
          this.deliver(reads, page);
          // Stopped at its limit: every range read may have more at once.
          if (page.more) for (const { sessionId } of reads) if (this.sessions.has(sessionId)) this.hinted.add(sessionId);
        } catch (error) {
          // A failed read ends the streams it served (each would have failed its own read).
          for (const { followers } of reads) for (const follower of followers) follower.subscriber.error(error);
        }
      }
    } finally {
      this.reading = false;
    }
  }

  private deliver(reads: readonly SessionRead[], page: LoopStreamsPage): void {
    const events = new Map<string, LoopEventView[]>();
    for (const { range, loopId, event } of page.events) {
      const key = `${range}/${loopId}`;
      const list = events.get(key);
      if (list) list.push(event);
      else events.set(key, [event]);
    }
    reads.forEach(({ followers }, range) => {
      for (const follower of followers) {
        if (follower.subscriber.closed) continue;
        for (const event of events.get(`${range}/${follower.loopId}`) ?? []) {
          if (event.sequence > follower.last) follower.subscriber.next(event);
        }
        follower.last = Math.max(follower.last, page.last[range]!);
      }
    });
  }

  // The hints failed: every stream ends (none would hear of new records again).
  private failAll(error: unknown): void {
    for (const followers of [...this.sessions.values()]) for (const follower of [...followers]) follower.subscriber.error(error);
  }
}

// A session's range: from its lowest stream, of its one loop when all its streams follow one.
function rangeOf({ sessionId, followers }: SessionRead): LoopStreamRangeRequest {
  const after = Math.min(...followers.map((follower) => follower.last));
  const loops = new Set(followers.map((follower) => follower.loopId));
  return loops.size === 1 ? { sessionId, loopId: followers[0]!.loopId, after } : { sessionId, after };
}
