import { ApiProperty } from '@nestjs/swagger';
import type { Principal } from '../../http/principal.js';

export class WhoamiDto {
  @ApiProperty({ enum: ['admin', 'session'] })
  readonly kind: 'admin' | 'session';

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The session a session token opens; null for the admin token.',
  })
  readonly session_id: string | null;

  static from(principal: Principal): WhoamiDto {
    return { kind: principal.kind, session_id: principal.sessionId };
  }
}
