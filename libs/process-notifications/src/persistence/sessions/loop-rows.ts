import type { Loop } from '../../model/loop.interface.js';
import { LoopEntity } from './loop.entity.js';
import { toDomain } from './loop.mapper.js';
import { managerOf, type StoreReader, type StoreTransaction } from '../transaction/store-transaction.js';
import type { LoopEngine } from '../../vocabulary/process-vocabulary.js';

/** The statements on loops' rows, inside the journal writer's transactions (`JournalWriter.write`). */
export class LoopRows {
  /** True when the session has a loop with this id (stopped ones count). */
  exists(store: StoreReader, sessionId: string, loopId: string): Promise<boolean> {
    return managerOf(store).existsBy(LoopEntity, { sessionId, loopId });
  }

  /** How many loops the session has, stopped ones too. */
  count(store: StoreReader, sessionId: string): Promise<number> {
    return managerOf(store).countBy(LoopEntity, { sessionId });
  }

  /** Inserts a running loop; the loop as inserted. */
  async insert(store: StoreTransaction, sessionId: string, loopId: string, engine: LoopEngine, createdAt: string): Promise<Loop> {
    const manager = managerOf(store);
    const row = manager.create(LoopEntity, { sessionId, loopId, engine, state: 'running', createdAt });
    await manager.insert(LoopEntity, row);
    return toDomain(row);
  }

  /** Marks a loop stopped. */
  async stop(store: StoreTransaction, sessionId: string, loopId: string): Promise<void> {
    await managerOf(store).update(LoopEntity, { sessionId, loopId }, { state: 'stopped' });
  }
}
