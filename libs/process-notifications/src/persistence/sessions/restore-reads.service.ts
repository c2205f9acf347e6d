import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { JournalRows, type LoopStopRow, type PendingRow } from '../journal/journal-rows.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { managerOf } from '../transaction/store-transaction.js';
import type { Loop } from '../../model/loop.interface.js';
import type { Session } from '../../model/session.interface.js';
import { LoopEntity } from './loop.entity.js';
import { toDomain as loopOf } from './loop.mapper.js';
import { SessionCredentials } from './session-credentials.js';
import { SessionEntity } from './session.entity.js';
import { toDomain as sessionOf } from './session.mapper.js';

/** What restore rebuilds the in-memory state from, before the pending notifications. */
export interface RestoreRows {
  readonly sessions: Session[];
  readonly loops: Loop[];
  readonly stops: LoopStopRow[];
}

/** The read restore rebuilds a node's sessions and loops from, on the journal writer's read connection. */
@Injectable()
export class RestoreReads {
  private readonly rows: JournalRows;

  constructor(
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
    private readonly journal: JournalWriter,
    private readonly credentials: SessionCredentials,
  ) {
    this.rows = new JournalRows(dataSource);
  }

  /**
   * What restore needs, in one read: sessions, loops and loop stop records, then every
   * still-pending notification, handed to what `rebuild` returns for them in journal order; of
   * every session, or of one. A session found closed has its writes refused from then on. The
   * sessions read are the ones this node takes on (every one at start on one node, one at its
   * takeover), so their token hashes go to the credentials cache here, where they are read.
   */
  restore(sessionId: string | undefined, rebuild: (rows: RestoreRows) => (pending: PendingRow) => void): Promise<void> {
    return this.journal.read(async (store) => {
      const manager = managerOf(store);
      const where = sessionId === undefined ? {} : { sessionId };
      const sessions = await manager.find(SessionEntity, { where });
      if (sessionId === undefined) this.credentials.clear();
      for (const session of sessions) {
        if (session.closedAt) this.journal.refuseWritesOf(session.sessionId, session.closedAt);
        this.credentials.hold(session.sessionId, session.closedAt ? null : session.tokenHash);
      }
      const visit = rebuild({
        sessions: sessions.map(sessionOf),
        loops: (await manager.find(LoopEntity, { where })).map(loopOf),
        stops: await this.rows.loopStops(manager, sessionId),
      });
      await this.rows.forEachPending(manager, sessionId, visit);
    });
  }
}
