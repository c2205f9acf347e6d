import { ApiProperty } from '@nestjs/swagger';
import { RefusalDto } from './refusal.dto.js';

export class RefusalsDto {
  @ApiProperty({ type: [RefusalDto], description: 'What this node refused, newest first (it keeps the last 1,000).' })
  readonly refusals: RefusalDto[];
}
