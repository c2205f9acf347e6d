import { IsNull } from 'typeorm';
import { SessionEntity } from './session.entity.js';
import { managerOf, type StoreReader, type StoreTransaction } from '../transaction/store-transaction.js';

/**
 * The statements on sessions' rows, inside the journal writer's transactions (`JournalWriter.write`,
 * `rotateSessionToken`, `closeSession`) or its reads.
 */
export class SessionRows {
  /** True when a session with this id was ever opened (closed ones count). */
  exists(store: StoreReader, sessionId: string): Promise<boolean> {
    return managerOf(store).existsBy(SessionEntity, { sessionId });
  }

  /** The session's row, open or closed, or null. */
  byId(store: StoreReader, sessionId: string): Promise<SessionEntity | null> {
    return managerOf(store).findOneBy(SessionEntity, { sessionId });
  }

  /** Inserts an open session; the row as inserted. */
  async insert(store: StoreTransaction, sessionId: string, tokenHash: string, createdAt: string): Promise<SessionEntity> {
    const manager = managerOf(store);
    const entity = manager.create(SessionEntity, { sessionId, tokenHash, createdAt, closedAt: null });
    await manager.insert(SessionEntity, entity);
    return entity;
  }

  /** The open session a token hash opens, if any: a closed session's hash is null. */
  byTokenHash(store: StoreReader, tokenHash: string): Promise<SessionEntity | null> {
    return managerOf(store).findOneBy(SessionEntity, { tokenHash, closedAt: IsNull() });
  }

  /** Replaces an open session's token hash; false when the session is closed (or unknown). */
  async replaceToken(store: StoreTransaction, sessionId: string, tokenHash: string): Promise<boolean> {
    const result = await managerOf(store).update(SessionEntity, { sessionId, closedAt: IsNull() }, { tokenHash });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Closes a session at `closedAt` and forgets its token hash, unless it is closed already; the
   * time it was closed at either way (null for an unknown session).
   */
  async close(store: StoreTransaction, sessionId: string, closedAt: string): Promise<string | null> {
    const manager = managerOf(store);
    await manager.update(SessionEntity, { sessionId, closedAt: IsNull() }, { closedAt, tokenHash: null });
    const row = await manager.findOne(SessionEntity, { where: { sessionId }, select: { sessionId: true, closedAt: true } });
    return row?.closedAt ?? null;
  }
}
