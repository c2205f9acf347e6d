import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { filter, interval, map, merge, mergeMap, type Observable } from 'rxjs';
import { hintedSessions } from '../persistence/journal/journal-commit-hint.js';
import { JournalNotifyListener } from '../persistence/journal/journal-notify-listener.js';
import { JournalWriter } from '../persistence/journal/journal-writer.service.js';
import { SessionLeases } from '../persistence/leases/session-leases.service.js';
import { Topology } from '../topology/topology.js';

// While the LISTEN connection is down, readers re-read this often instead.
const POLL_MS = 1_000;

/**
 * Tells readers when a session's journal may have new records: on SQLite when this process
 * commits them; on PostgreSQL also when another node does (the hints of {@link JournalNotifyListener},
 * one NOTIFY per committed batch; this node's own are skipped, announced already), with a poll every second while its connection is down and a
 * wake-up of every reader after it reconnects. A hint only: readers re-read the journal after
 * the last sequence they delivered, so a lost or repeated hint costs nothing.
 */
@Injectable()
export class JournalFeed implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly listener: JournalNotifyListener,
    private readonly writer: JournalWriter,
    private readonly topology: Topology,
    // Which node this is: its own hints name it, and are skipped.
    private readonly leases: SessionLeases,
  ) {}

  /** Emits whenever records of the session may have been committed (by any node). */
  changes(sessionId: string): Observable<void> {
    const local = this.writer.records$.pipe(filter((record) => record.sessionId === sessionId));
    return this.withHints(local, sessionId);
  }

  /**
   * Emits whenever records of one loop may have been committed: this node's commits of that loop's
   * records, and on PostgreSQL every hint for its session (hints name sessions, not loops).
   */
  loopChanges(sessionId: string, loopId: string): Observable<void> {
    const local = this.writer.records$.pipe(filter((record) => record.loopId === loopId && record.sessionId === sessionId));
    return this.withHints(local, sessionId);
  }

  /**
   * Every session's hints in one stream (issue 46): the id of a session whose records may have
   * been committed (by any node), or null when any session's may have (the listener (re)started,
   * or a poll while it is down). For a reader of many sessions: one subscription and one split
   * of each hint's payload, not one per session.
   */
  changedSessions(): Observable<string | null> {
    const local = this.writer.records$.pipe(map((record) => record.sessionId));
    return this.topology.withOtherNodes(local, () => {
      const remote = this.listener.hints$.pipe(mergeMap((payload) => hintedSessions(payload, this.leases.nodeId) ?? [null]));
      const fallback = interval(POLL_MS).pipe(
        filter(() => !this.listener.listening),
        map(() => null),
      );
      return merge(remote, fallback);
    });
  }

  // This node's commits, and on PostgreSQL the session's hints, or a poll while not listening.
  private withHints(local: Observable<unknown>, sessionId: string): Observable<void> {
    return this.topology
      .withOtherNodes(local, () => {
        const remote = this.listener.hints$.pipe(
          filter((payload) => {
            const sessions = hintedSessions(payload, this.leases.nodeId);
            return sessions === null || sessions.includes(sessionId);
          }),
        );
        const fallback = interval(POLL_MS).pipe(filter(() => !this.listener.listening));
        return merge(remote, fallback);
      })
      .pipe(map(() => undefined));
  }

  async onModuleInit(): Promise<void> {
    await this.topology.acrossNodes(() => this.listener.start());
  }

  onModuleDestroy(): void {
    this.listener.stop();
  }
}
