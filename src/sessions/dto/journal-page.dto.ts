import { ApiProperty } from '@nestjs/swagger';
import { JournalRecordDto } from './journal-record.dto.js';

export class JournalPageDto {
  @ApiProperty({ type: [JournalRecordDto] })
  readonly records: JournalRecordDto[];

  @ApiProperty({ type: 'integer', description: 'Pass as `after` to read the next page (the last sequence returned, or `after` itself).' })
  readonly next_after: number;
}
