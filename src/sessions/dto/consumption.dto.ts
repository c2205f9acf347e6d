import { ApiProperty } from '@nestjs/swagger';
import type { Consumption } from 'process-notifications-contract';

export class ConsumptionDto implements Consumption {
  @ApiProperty({ description: 'False when it had already been consumed.' })
  readonly consumed: boolean;

  @ApiProperty({ type: 'integer', description: 'Journal sequence of the consumed record.' })
  readonly sequence: number;
}
