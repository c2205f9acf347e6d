import { ApiProperty } from '@nestjs/swagger';
import type { AdminSessionView } from 'nestjs-process-notifications';

export class AdminSessionDto {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ format: 'date-time' })
  readonly created_at: string;

  @ApiProperty({ description: 'Loops of the session.' })
  readonly loops: number;

  @ApiProperty({ description: 'Its loops in state running.' })
  readonly running_loops: number;

  @ApiProperty({ description: 'Notifications of its loops in the journal without a consumed record.' })
  readonly unconsumed: number;

  @ApiProperty({ description: 'Its highest journal sequence (0 when none).' })
  readonly last_sequence: number;

  static from(view: AdminSessionView): AdminSessionDto {
    return {
      session_id: view.sessionId,
      created_at: view.createdAt,
      loops: view.loops,
      running_loops: view.runningLoops,
      unconsumed: view.unconsumed,
      last_sequence: view.lastSequence,
    };
  }
}
