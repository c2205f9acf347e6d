import { ApiProperty } from '@nestjs/swagger';
import type { SessionCreated } from 'process-notifications-contract';

export class SessionCreatedDto implements SessionCreated {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ description: 'Bearer token of the session. Shown once: only its hash is stored.' })
  readonly token: string;
}
