import { ApiProperty } from '@nestjs/swagger';
import type { LoopEngine, LoopState, LoopView } from '#process-notifications';

export class LoopDto {
  @ApiProperty({ format: 'uuid' })
  readonly loop_id: string;

  @ApiProperty({ enum: ['native', 'foreign'] })
  readonly engine: LoopEngine;

  @ApiProperty({ enum: ['running', 'stopped'] })
  readonly state: LoopState;

  @ApiProperty({ description: 'Capacity of the pending set.' })
  readonly capacity: number;

  @ApiProperty({ description: 'Notifications in the pending set now.' })
  readonly pending: number;

  static from(view: LoopView): LoopDto {
    return { loop_id: view.loopId, engine: view.engine, state: view.state, capacity: view.capacity, pending: view.pending };
  }
}
