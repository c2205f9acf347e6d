import { ApiProperty } from '@nestjs/swagger';
import { SESSION_STATES, type SessionState, type SessionView } from 'nestjs-process-notifications';
import { LoopDto } from './loop.dto.js';
import type { Session } from 'process-notifications-contract';

export class SessionDto implements Session {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ enum: SESSION_STATES, description: '`closed` once closed: readable with the admin token, no more writes.' })
  readonly state: SessionState;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When it was closed; null while open.' })
  readonly closed_at: string | null;

  @ApiProperty({ type: [LoopDto] })
  readonly loops: LoopDto[];

  static from(view: SessionView): SessionDto {
    return {
      session_id: view.sessionId,
      state: view.state,
      closed_at: view.closedAt,
      loops: view.loops.map((loop) => LoopDto.from(loop)),
    };
  }
}
