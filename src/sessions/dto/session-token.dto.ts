import { ApiProperty } from '@nestjs/swagger';
import type { SessionTokenView } from 'nestjs-process-notifications';
import type { SessionToken } from 'process-notifications-contract';

export class SessionTokenDto implements SessionToken {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ description: 'The new bearer token of the session. Shown once; the old token is refused from now on.' })
  readonly token: string;

  static from(view: SessionTokenView): SessionTokenDto {
    return { session_id: view.sessionId, token: view.token };
  }
}
