import { ApiProperty } from '@nestjs/swagger';
import { AdminSessionDto } from './admin-session.dto.js';
import type { AdminSessionsPage } from 'process-notifications-contract';

export class AdminSessionsPageDto implements AdminSessionsPage {
  @ApiProperty({ type: [AdminSessionDto], description: 'Newest session first.' })
  readonly sessions: AdminSessionDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' })
  readonly next_cursor: string | null;
}
