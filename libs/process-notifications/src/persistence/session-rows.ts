import { IsNull, type EntityManager } from 'typeorm';
import { SessionEntity } from './session.entity.js';

/**
 * The statements on sessions' tokens and their closing, inside the journal writer's transactions
 * (see `JournalWriter.rotateSessionToken` and `closeSession`) or its reads.
 */
export class SessionRows {
  /** The open session a token hash opens, if any: a closed session's hash is null. */
  byTokenHash(manager: EntityManager, tokenHash: string): Promise<SessionEntity | null> {
    return manager.findOneBy(SessionEntity, { tokenHash, closedAt: IsNull() });
  }

  /** Replaces an open session's token hash; false when the session is closed (or unknown). */
  async replaceToken(manager: EntityManager, sessionId: string, tokenHash: string): Promise<boolean> {
    const result = await manager.update(SessionEntity, { sessionId, closedAt: IsNull() }, { tokenHash });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Closes a session at `closedAt` and forgets its token hash, unless it is closed already; the
   * time it was closed at either way (null for an unknown session).
   */
  async close(manager: EntityManager, sessionId: string, closedAt: string): Promise<string | null> {
    await manager.update(SessionEntity, { sessionId, closedAt: IsNull() }, { closedAt, tokenHash: null });
    const row = await manager.findOne(SessionEntity, { where: { sessionId }, select: { sessionId: true, closedAt: true } });
    return row?.closedAt ?? null;
  }
}
