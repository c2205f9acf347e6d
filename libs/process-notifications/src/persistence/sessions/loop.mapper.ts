import type { Loop } from '../../model/loop.interface.js';
import type { LoopEntity } from './loop.entity.js';

/** A loop row as the domain's {@link Loop}: a new plain value, without the admin counts. */
export function toDomain(entity: LoopEntity): Loop {
  return { sessionId: entity.sessionId, loopId: entity.loopId, engine: entity.engine, state: entity.state, createdAt: entity.createdAt };
}
