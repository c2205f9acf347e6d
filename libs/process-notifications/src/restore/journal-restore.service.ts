import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RestoreReads } from '../persistence/sessions/restore-reads.service.js';
import type { LoopStopRow, PendingRow } from '../persistence/journal/journal-rows.js';
import { Loops } from '../loops/loops.service.js';
import { Topology } from '../topology/topology.js';
import { Sessions } from '../sessions/sessions.service.js';
import type { ProcessCompletionNotification } from '../model/process-completion-notification.interface.js';

/**
 * The notification a pending journal record holds. Only the canonical payload of a validated
 * notification is ever journaled as `process_notification`, so its stored JSON is read back as
 * one: the one place where stored JSON becomes a typed notification.
 */
function journaledNotification(record: PendingRow): ProcessCompletionNotification {
  return JSON.parse(record.payload) as ProcessCompletionNotification;
}

/**
 * Restore (spec section 5): sessions, loops, and every running native loop's pending set from
 * the journal, all notifications journaled for it in journal order minus those consumed; a
 * stopped loop gets back exactly what it held when it stopped. Restored notifications bypass
 * dispatch and capacity, so nothing journaled is dropped. With one process (SQLite) everything
 * is restored at module start; with several nodes (PostgreSQL) each session is restored when
 * this node takes its lease.
 */
@Injectable()
export class JournalRestore implements OnModuleInit {
  constructor(
    private readonly writer: RestoreReads,
    private readonly sessions: Sessions,
    private readonly loops: Loops,
    private readonly topology: Topology,
  ) {}

  async onModuleInit(): Promise<void> {
    // Every session at once on one node; where several share the database, each at its takeover.
    // Only what is still pending: the cost follows the pending sets, not the whole history.
    await this.topology.onOneNode(() =>
      this.writer.restore(undefined, (rows) => {
        this.sessions.load(rows.sessions);
        this.loops.load(rows.loops);
        return this.pendingRestorer(rows.stops);
      }),
    );
  }

  /** Rebuilds one session's loops and pending sets (this node has just taken its lease). */
  async restoreSession(sessionId: string): Promise<void> {
    await this.writer.restore(sessionId, (rows) => {
      for (const session of rows.sessions) this.sessions.hold(session);
      this.loops.loadSession(sessionId, rows.loops);
      return this.pendingRestorer(rows.stops);
    });
  }

  // Puts each still-pending notification back into its loop, once the loops are loaded.
  private pendingRestorer(stops: readonly LoopStopRow[]): (record: PendingRow) => void {
    // What each stopped loop held when it stopped; a loop stopped by an older version without
    // such a record restores nothing (spec section 5 rebuilds running loops only).
    const heldAtStop = new Map(stops.map((stop) => [`${stop.sessionId}/${stop.loopId}`, new Set(stop.pending)]));
    return (record) => {
      const journaled = journaledNotification(record);
      const loop = this.loops.find(journaled.session_id, journaled.loop_id);
      if (!loop || loop.engine !== 'native') return;
      const notification = loop.pendingEntry(journaled, record.sequence);
      // A stopped loop keeps what it held when it stopped, never what it refused after.
      if (loop.state === 'stopped' && !heldAtStop.get(`${loop.sessionId}/${loop.loopId}`)?.has(notification.commandId)) return;
      loop.restore(notification);
    };
  }
}
