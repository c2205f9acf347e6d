import { ApiProperty } from '@nestjs/swagger';
import { LOOP_ENGINES, LOOP_STATES, type LoopEngine, type LoopState, type LoopView } from 'nestjs-process-notifications';
import type { Loop } from 'process-notifications-contract';

export class LoopDto implements Loop {
  @ApiProperty({ format: 'uuid' })
  readonly loop_id: string;

  @ApiProperty({ enum: LOOP_ENGINES })
  readonly engine: LoopEngine;

  @ApiProperty({ enum: LOOP_STATES })
  readonly state: LoopState;

  @ApiProperty({ type: 'integer', description: 'Capacity of the pending set.' })
  readonly capacity: number;

  @ApiProperty({ type: 'integer', description: 'Notifications in the pending set now.' })
  readonly pending: number;

  static from(view: LoopView): LoopDto {
    return { loop_id: view.loopId, engine: view.engine, state: view.state, capacity: view.capacity, pending: view.pending };
  }
}
