import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Engines a loop can run. Only `native` loops take process notifications. */
export const LOOP_ENGINES = ['native', 'foreign'] as const;
export type LoopEngine = (typeof LOOP_ENGINES)[number];
export type LoopState = 'running' | 'stopped';

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
