import { ApiProperty } from '@nestjs/swagger';
import { RefusalDto } from './refusal.dto.js';
import type { Refusals } from 'process-notifications-contract';

export class RefusalsDto implements Refusals {
  @ApiProperty({
    type: [RefusalDto],
    description: 'What the nodes refused lately, newest first (the database keeps the newest 1,000, cluster-wide).',
  })
  readonly refusals: RefusalDto[];
}
