import type { Session } from '../../model/session.interface.js';
import type { SessionEntity } from './session.entity.js';

/**
 * A session row as the domain's {@link Session}: a new plain value, without the token hash (which
 * only `SessionStore` and its credentials cache read) nor the admin counts.
 */
export function toDomain(entity: SessionEntity): Session {
  return { sessionId: entity.sessionId, createdAt: entity.createdAt, closedAt: entity.closedAt };
}
