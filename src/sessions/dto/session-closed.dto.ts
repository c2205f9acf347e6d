import { ApiProperty } from '@nestjs/swagger';
import type { ClosedSessionView } from 'nestjs-process-notifications';
import type { ClosedSession } from 'process-notifications-contract';

export class SessionClosedDto implements ClosedSession {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ enum: ['closed'] })
  readonly state: 'closed';

  @ApiProperty({ format: 'date-time', description: 'When it was closed: the same on every later close.' })
  readonly closed_at: string;

  static from(view: ClosedSessionView): SessionClosedDto {
    return { session_id: view.sessionId, state: view.state, closed_at: view.closedAt };
  }
}
