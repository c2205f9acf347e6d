import { ApiProperty } from '@nestjs/swagger';
import { TOKEN_KINDS, type TokenKind } from 'process-notifications-contract';
import type { Principal } from '../../http/principal.js';

export class WhoamiDto {
  @ApiProperty({ enum: TOKEN_KINDS })
  readonly kind: TokenKind;

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
