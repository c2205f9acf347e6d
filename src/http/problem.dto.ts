import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { STOP_CAUSES } from 'nestjs-process-notifications';

/** An RFC 9457 problem document (`application/problem+json`). */
export class ProblemDto {
  @ApiProperty({ example: 'urn:process-notifications:problem:invalid_field' })
  readonly type: string;

  @ApiProperty()
  readonly title: string;

  @ApiProperty()
  readonly status: number;

  @ApiProperty()
  readonly detail: string;

  @ApiProperty({ example: 'invalid_field', description: 'Stable error code (spec §8).' })
  readonly code: string;

  @ApiPropertyOptional({ description: 'The failing field (`invalid_field`).' })
  readonly field?: string;

  @ApiPropertyOptional({ enum: ['stopped', 'collision'] })
  readonly disposition?: string;

  @ApiPropertyOptional({ enum: STOP_CAUSES, description: 'Why delivery stopped.' })
  readonly cause?: string;

  @ApiPropertyOptional({ description: 'Sequence of the original record (`idempotency_collision`).' })
  readonly sequence?: number;
}
