import { ApiProperty } from '@nestjs/swagger';
import type { SessionView } from 'nestjs-process-notifications';
import { LoopDto } from './loop.dto.js';

export class SessionDto {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ type: [LoopDto] })
  readonly loops: LoopDto[];

  static from(view: SessionView): SessionDto {
    return { session_id: view.sessionId, loops: view.loops.map((loop) => LoopDto.from(loop)) };
  }
}
