import { ApiProperty, PickType } from '@nestjs/swagger';
import type { AdminLoopView } from 'nestjs-process-notifications';
import { LoopDto } from '../../sessions/dto/loop.dto.js';
import type { AdminLoop } from 'process-notifications-contract';

/** A loop as the admin list shows it: the loop's own fields, its session, and its unconsumed work. */
export class AdminLoopDto extends PickType(LoopDto, ['loop_id', 'engine', 'state', 'capacity'] as const) implements AdminLoop {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ type: 'integer', description: 'Its notifications in the journal without a consumed record.' })
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
