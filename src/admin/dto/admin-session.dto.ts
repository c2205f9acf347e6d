import { ApiProperty } from '@nestjs/swagger';
import { SESSION_STATES, type AdminSessionView, type SessionState } from 'nestjs-process-notifications';
import type { AdminSession } from 'process-notifications-contract';

export class AdminSessionDto implements AdminSession {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ format: 'date-time' })
  readonly created_at: string;

  @ApiProperty({ enum: SESSION_STATES, description: '`closed` once the session was closed.' })
  readonly state: SessionState;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When it was closed; null while open.' })
  readonly closed_at: string | null;

  @ApiProperty({ type: 'integer', description: 'Loops of the session.' })
  readonly loops: number;

  @ApiProperty({ type: 'integer', description: 'Its loops in state running.' })
  readonly running_loops: number;

  @ApiProperty({ type: 'integer', description: 'Notifications of its loops in the journal without a consumed record.' })
  readonly unconsumed: number;

  @ApiProperty({ type: 'integer', description: 'Its highest journal sequence (0 when none).' })
  readonly last_sequence: number;

  static from(view: AdminSessionView): AdminSessionDto {
    return {
      session_id: view.sessionId,
      created_at: view.createdAt,
      state: view.state,
      closed_at: view.closedAt,
      loops: view.loops,
      running_loops: view.runningLoops,
      unconsumed: view.unconsumed,
      last_sequence: view.lastSequence,
    };
  }
}
