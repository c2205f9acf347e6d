import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { LoopEngine, LoopState } from '../vocabulary/process-vocabulary.js';

/** A persisted loop, so a restarted process knows which loops run and which are stopped. */
@Entity({ name: 'pn_loops' })
export class LoopEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @PrimaryColumn({ name: 'loop_id', type: 'varchar', length: 36 })
  loopId: string;

  @Column({ name: 'engine', type: 'varchar', length: 16 })
  engine: LoopEngine;

  @Column({ name: 'state', type: 'varchar', length: 16 })
  state: LoopState;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;
}
