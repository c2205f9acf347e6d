import { ApiProperty } from '@nestjs/swagger';
import { LOOP_ENGINES, LOOP_STATES, type AdminLoopView, type LoopEngine, type LoopState } from 'nestjs-process-notifications';

export class AdminLoopDto {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ format: 'uuid' })
  readonly loop_id: string;

  @ApiProperty({ enum: LOOP_ENGINES })
  readonly engine: LoopEngine;

  @ApiProperty({ enum: LOOP_STATES })
  readonly state: LoopState;

  @ApiProperty({ description: 'Capacity of the pending set.' })
  readonly capacity: number;

  @ApiProperty({ description: 'Its notifications in the journal without a consumed record.' })
  readonly unconsumed: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Creation time of its oldest unconsumed notification.' })
  readonly oldest_unconsumed_at: string | null;

  static from(view: AdminLoopView): AdminLoopDto {
    return {
      session_id: view.sessionId,
      loop_id: view.loopId,
      engine: view.engine,
      state: view.state,
      capacity: view.capacity,
      unconsumed: view.unconsumed,
      oldest_unconsumed_at: view.oldestUnconsumedAt,
    };
  }
}
