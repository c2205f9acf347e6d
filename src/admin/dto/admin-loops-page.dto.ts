import { ApiProperty } from '@nestjs/swagger';
import { AdminLoopDto } from './admin-loop.dto.js';
import type { AdminLoopsPage } from 'process-notifications-contract';

export class AdminLoopsPageDto implements AdminLoopsPage {
  @ApiProperty({ type: [AdminLoopDto], description: 'Newest loop first.' })
  readonly loops: AdminLoopDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' })
  readonly next_cursor: string | null;
}
