import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { LoopEngine, LoopState } from '../../vocabulary/process-vocabulary.js';

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

  // The admin counts (migration 1765100000000): written only by JournalCounters, with the journal.

  /** Notifications of the loop in the journal without a consumed record. */
  @Column({ name: 'unconsumed', type: 'integer', insert: false, update: false })
  unconsumed?: number;

  /** Sequence of the loop's oldest unconsumed notification, null when none. */
  @Column({ name: 'oldest_unconsumed_sequence', type: 'integer', nullable: true, insert: false, update: false })
  oldestUnconsumedSequence?: number | null;

  /** `created_at` of the loop's oldest unconsumed notification, null when none. */
  @Column({ name: 'oldest_unconsumed_at', type: 'varchar', length: 32, nullable: true, insert: false, update: false })
  oldestUnconsumedAt?: string | null;
}
