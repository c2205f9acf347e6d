import { ApiProperty } from '@nestjs/swagger';
import { AdminLoopDto } from './admin-loop.dto.js';

export class AdminLoopsPageDto {
  @ApiProperty({ type: [AdminLoopDto], description: 'Newest loop first.' })
  readonly loops: AdminLoopDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' })
  readonly next_cursor: string | null;
}
