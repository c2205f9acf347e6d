import { Inject } from '@nestjs/common';
import { filter, map, type Observable } from 'rxjs';
import { LoopNotFoundError } from './errors/loop-not-found.error.js';
import type { JournalFeed } from './journal/journal-feed.service.js';
import type { JournalCommit, JournalWriter } from './persistence/journal/journal-writer.service.js';
import type { JournalPages } from './persistence/pages/journal-pages.service.js';
import { JournalHealth } from './persistence/health/journal-health.service.js';
import type { Sessions } from './sessions/sessions.service.js';
import { idOf } from './validation/canonical-uuid.decorator.js';
import {
  loopEventView,
  recordView,
  type JournalRecordView,
  type LoopEventsPage,
  type LoopStreamRangeRequest,
  type LoopStreamsPage,
  type SessionLoopEventsPage,
} from './process-notifications.views.js';

/**
 * The journal half of `ProcessNotificationsService`'s API: reads of a session's journal and
 * of loops' event streams, any node answering from the database, and the streams of what commits.
 * A base class so the service stays one object for embedders while each file stays readable.
 * Its methods are where embedders' ids enter: each is normalised here, once (`idOf`).
 */
export abstract class ProcessNotificationsJournalApi {
  // Injected as a property, so the service's constructor (and every subclass's) stays as it is.
  @Inject(JournalHealth) private readonly health!: JournalHealth;

  constructor(
    protected readonly sessions: Sessions,
    protected readonly journal: JournalWriter,
    protected readonly pages: JournalPages,
    protected readonly feed: JournalFeed,
  ) {}

  /** Journal records of a session after `after`, at most `limit`, in sequence order. */
  async readJournal(sessionId: string, after = 0, limit = 100): Promise<JournalRecordView[]> {
    // Any node reads any session's journal: no ownership needed.
    const session = await this.sessions.find(idOf(sessionId, 'session_id'));
    return this.pages.pageOf(session.sessionId, after, limit, recordView);
  }

  /**
   * Where a loop's event stream starts when the client names no position (issue 37): just
   * before the loop's oldest unconsumed notification, or, when it has none, at the session's
   * last sequence. Read from the database, so any node answers; throws `SessionNotFoundError` or
   * `LoopNotFoundError` (also use it to check the loop before streaming from a given position).
   */
  async loopEventsStart(sessionId: string, loopId: string): Promise<number> {
    const session = await this.sessions.find(idOf(sessionId, 'session_id'));
    const loop = idOf(loopId, 'loop_id');
    const start = await this.pages.loopStreamStart(session.sessionId, loop);
    if (!start) throw new LoopNotFoundError(session.sessionId, loop);
    return start.oldestUnconsumed === null ? start.lastSequence : start.oldestUnconsumed - 1;
  }

  /**
   * One read of a loop's event stream after `after` (issue 37): the loop's own records only, in
   * sequence order, as events: each notification of the loop not consumed when read (with its
   * outcome if that was journaled before it), each outcome of one of its notifications journaled
   * after that notification, each consumed record. `last` is where to read on (past skipped
   * records too), `more` whether to read on at once. From the database: any node, any owner. Call after {@link loopEventsStart}.
   */
  async readLoopEvents(sessionId: string, loopId: string, after: number, limit = 500): Promise<LoopEventsPage> {
    const page = await this.pages.loopStreamPage(idOf(sessionId, 'session_id'), idOf(loopId, 'loop_id'), after, limit);
    return { events: page.rows.map(loopEventView), last: page.last, more: page.more };
  }

  /**
   * {@link readLoopEvents} for every loop of a session at once: one read from `after`, each event
   * with its loop, the events of a loop being what {@link readLoopEvents} reads for it over the
   * same range. For a node streaming many loops of one session: one read per commit, not one per loop.
   */
  async readSessionLoopEvents(sessionId: string, after: number, limit = 500): Promise<SessionLoopEventsPage> {
    const page = await this.pages.sessionLoopStreamPage(idOf(sessionId, 'session_id'), after, limit);
    return {
      events: page.rows.map(({ loopId, row }) => ({ loopId, event: loopEventView(row) })),
      last: page.last,
      more: page.more,
    };
  }

  /**
   * {@link readLoopEvents} and {@link readSessionLoopEvents} for the streams of many sessions at
   * once (issue 46): one read per 64 ranges, each range (one per session) from its own position,
   * its events being what the read of its loop, or of its session's loops, gives over the same
   * range. For a node streaming the loops of many sessions: one read per commit, not one per
   * session. `last` is per range: where to read that range on. On PostgreSQL a range moves only
   * past its own records, never to another session's sequence; on SQLite, whose one writer
   * commits in sequence order, it may move past other sessions' records too.
   */
  async readLoopStreams(ranges: readonly LoopStreamRangeRequest[], limit = 500): Promise<LoopStreamsPage> {
    const page = await this.pages.loopStreamRangesPage(
      ranges.map(({ sessionId, loopId, after }) => ({
        sessionId: idOf(sessionId, 'session_id'),
        loopId: loopId == null ? null : idOf(loopId, 'loop_id'),
        after,
      })),
      limit,
    );
    return {
      events: page.rows.map(({ range, loopId, row }) => ({ range, loopId, event: loopEventView(row) })),
      last: page.last,
      more: page.more,
    };
  }

  /** Like {@link journalChanges}, for one loop's records: a hint to read its stream again. */
  loopChanges(sessionId: string, loopId: string): Observable<void> {
    return this.feed.loopChanges(idOf(sessionId, 'session_id'), idOf(loopId, 'loop_id'));
  }

  /**
   * True when the journal can commit, answered within 2 s: false while the database does not
   * answer, and after a failed write (a full disk, say) until a write commits again.
   */
  isHealthy(): Promise<boolean> {
    return this.health.isHealthy();
  }

  /**
   * Every transaction the journal writer commits: how many units of work it held (`size`) and
   * how long it took from BEGIN to the end of COMMIT (`seconds`). For metrics.
   */
  get journalCommits$(): Observable<JournalCommit> {
    return this.journal.commits$;
  }

  /** Every journal record as it commits, all sessions, in sequence order. */
  get records$(): Observable<JournalRecordView> {
    return this.journal.records$.pipe(map(recordView));
  }

  /**
   * Emits whenever records of the session may have been committed, by this node or (on
   * PostgreSQL) any other: a hint to read the journal after the last sequence seen. Together with
   * {@link readJournal} it makes a gap-free tail that survives a change of owner.
   */
  journalChanges(sessionId: string): Observable<void> {
    return this.feed.changes(idOf(sessionId, 'session_id'));
  }

  /**
   * {@link journalChanges} of every session in one stream: the id of a session whose records may
   * have been committed (by this node or, on PostgreSQL, any other), or null when any session's
   * may have. For a reader following many sessions: one subscription, not one per session.
   */
  journalChangedSessions(): Observable<string | null> {
    return this.feed.changedSessions();
  }

  /** One session's journal records as this process commits them, in sequence order. */
  recordsOf(sessionId: string): Observable<JournalRecordView> {
    const id = idOf(sessionId, 'session_id');
    // Filter before parsing: this runs inside the append path for every record of every session.
    return this.journal.records$.pipe(
      filter((record) => record.sessionId === id),
      map(recordView),
    );
  }
}
