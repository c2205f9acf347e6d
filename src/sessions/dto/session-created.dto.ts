import { ApiProperty } from '@nestjs/swagger';

export class SessionCreatedDto {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ description: 'Bearer token of the session. Shown once: only its hash is stored.' })
  readonly token: string;
}
