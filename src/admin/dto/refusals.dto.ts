import { ApiProperty } from '@nestjs/swagger';
import { RefusalDto } from './refusal.dto.js';

export class RefusalsDto {
  @ApiProperty({
    type: [RefusalDto],
    description: 'What the nodes refused lately, newest first (the database keeps the newest 1,000, cluster-wide).',
  })
  readonly refusals: RefusalDto[];
}
