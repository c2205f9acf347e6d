import { ApiProperty } from '@nestjs/swagger';

export class ConsumptionDto {
  @ApiProperty({ description: 'False when it had already been consumed.' })
  readonly consumed: boolean;

  @ApiProperty({ description: 'Journal sequence of the consumed record.' })
  readonly sequence: number;
}
