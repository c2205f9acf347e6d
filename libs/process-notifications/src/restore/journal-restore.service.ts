import { Injectable, type OnModuleInit } from '@nestjs/common';
import { LoopEntity } from '../database/loop.entity.js';
import { SessionEntity } from '../database/session.entity.js';
import { JournalWriter } from '../database/journal-writer.service.js';
import { Loops } from '../loops/loops.service.js';
import { pendingFromPayload } from '../loops/pending-from-payload.js';
import { Sessions } from '../sessions/sessions.service.js';

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
    const { sessions, loops } = await this.writer.read(async (manager) => ({
      sessions: await manager.find(SessionEntity),
      loops: await manager.find(LoopEntity),
    }));
    // Only what is still pending: the cost follows the pending sets, not the whole history.
    const { pending, stops } = await this.writer.restoreRows();
    // What each stopped loop held when it stopped; a loop stopped by an older version without
    // such a record restores nothing (spec section 5 rebuilds running loops only).
    const heldAtStop = new Map(stops.map((stop) => [`${stop.sessionId}/${stop.loopId}`, new Set(stop.pending)]));

    this.sessions.load(sessions);
    this.loops.load(loops);
    for (const record of pending) {
      const loop = this.loops.find(record.sessionId, record.loopId);
      if (!loop || loop.engine !== 'native') continue;
      const notification = pendingFromPayload(JSON.parse(record.payload) as Record<string, unknown>, record.sequence);
      // A stopped loop keeps what it held when it stopped, never what it refused after.
      if (loop.state === 'stopped' && !heldAtStop.get(`${loop.sessionId}/${loop.loopId}`)?.has(notification.commandId)) continue;
      loop.restore(notification);
    }
  }
}
