import { Injectable, type OnModuleInit } from '@nestjs/common';
import { LoopEntity } from '../database/loop.entity.js';
import { SessionEntity } from '../database/session.entity.js';
import { CONSUMED_KIND } from '../journal/consumed-record.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { Loops } from '../loops/loops.service.js';
import { pendingFromPayload } from '../loops/pending-from-payload.js';
import { Sessions } from '../sessions/sessions.service.js';

// Journaled notifications without a consumed record, in journal order (uses ix_pn_journal_cause).
const PENDING_NOTIFICATIONS = `
  SELECT j.sequence, j.session_id, j.loop_id, j.payload FROM pn_journal j
  WHERE j.kind = 'process_notification' AND NOT EXISTS (
    SELECT 1 FROM pn_journal c
    WHERE c.session_id = j.session_id AND c.cause_command_id = j.idempotency_id AND c.kind = '${CONSUMED_KIND}'
  )
  ORDER BY j.sequence`;

const LOOP_STOPS = `SELECT session_id, loop_id, payload FROM pn_journal WHERE kind = 'loop_stopped'`;

/**
 * Restore at module start (spec section 5): sessions, loops, and every running native loop's
 * pending set from the journal, all notifications journaled for it in journal order minus those
 * consumed; a stopped loop gets back exactly what it held when it stopped. Restored
 * notifications bypass dispatch and capacity, so nothing journaled is dropped.
 */
@Injectable()
export class JournalRestore implements OnModuleInit {
  constructor(
    private readonly writer: JournalWriter,
    private readonly sessions: Sessions,
    private readonly loops: Loops,
  ) {}

  async onModuleInit(): Promise<void> {
    const { sessions, loops, pending, stops } = await this.writer.read(async (manager) => ({
      sessions: await manager.find(SessionEntity),
      loops: await manager.find(LoopEntity),
      // Only what is still pending: the cost follows the pending sets, not the whole history.
      pending: (await manager.query(PENDING_NOTIFICATIONS)) as Array<{ sequence: number | string; session_id: string; loop_id: string; payload: string }>,
      stops: (await manager.query(LOOP_STOPS)) as Array<{ session_id: string; loop_id: string; payload: string }>,
    }));
    // What each stopped loop held when it stopped; a loop stopped by an older version without
    // such a record restores nothing (spec section 5 rebuilds running loops only).
    const heldAtStop = new Map<string, Set<string>>();
    for (const stop of stops) heldAtStop.set(`${stop.session_id}/${stop.loop_id}`, new Set((JSON.parse(stop.payload) as { pending: string[] }).pending));

    this.sessions.load(sessions);
    this.loops.load(loops);
    for (const record of pending) {
      const loop = this.loops.find(record.session_id, record.loop_id);
      if (!loop || loop.engine !== 'native') continue;
      const notification = pendingFromPayload(JSON.parse(record.payload) as Record<string, unknown>, Number(record.sequence));
      // A stopped loop keeps what it held when it stopped, never what it refused after.
      if (loop.state === 'stopped' && !heldAtStop.get(`${loop.sessionId}/${loop.loopId}`)?.has(notification.commandId)) continue;
      loop.restore(notification);
    }
  }
}
