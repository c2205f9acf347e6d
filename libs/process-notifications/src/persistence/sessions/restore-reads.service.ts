import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { JournalRows, type LoopStopRow, type PendingRow } from '../journal/journal-rows.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { managerOf } from '../transaction/store-transaction.js';
import { LoopEntity } from './loop.entity.js';
import { SessionEntity } from './session.entity.js';

/** Rows restore rebuilds the in-memory state from, before the pending notifications. */
export interface RestoreRows {
  readonly sessions: SessionEntity[];
  readonly loops: LoopEntity[];
  readonly stops: LoopStopRow[];
}

/** The read restore rebuilds a node's sessions and loops from, on the journal writer's read connection. */
@Injectable()
export class RestoreReads {
  private readonly rows: JournalRows;

  constructor(
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
    private readonly journal: JournalWriter,
  ) {
    this.rows = new JournalRows(dataSource);
  }

  /**
   * What restore needs, in one read: sessions, loops and loop stop records, then every
   * still-pending notification, handed to what `rebuild` returns for them in journal order; of
   * every session, or of one. A session found closed has its writes refused from then on.
   */
  restore(sessionId: string | undefined, rebuild: (rows: RestoreRows) => (pending: PendingRow) => void): Promise<void> {
    return this.journal.read(async (store) => {
      const manager = managerOf(store);
      const where = sessionId === undefined ? {} : { sessionId };
      const sessions = await manager.find(SessionEntity, { where });
      for (const session of sessions) if (session.closedAt) this.journal.refuseWritesOf(session.sessionId, session.closedAt);
      const visit = rebuild({
        sessions,
        loops: await manager.find(LoopEntity, { where }),
        stops: await this.rows.loopStops(manager, sessionId),
      });
      await this.rows.forEachPending(manager, sessionId, visit);
    });
  }
}
