import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { STOP_CAUSES, type StopCause } from 'nestjs-process-notifications';
import { PROBLEM_DISPOSITIONS, type ProblemDisposition } from 'process-notifications-contract';

/** An RFC 9457 problem document (`application/problem+json`). */
export class ProblemDto {
  @ApiProperty({ example: 'urn:process-notifications:problem:invalid_field' })
  readonly type: string;

  @ApiProperty()
  readonly title: string;

  @ApiProperty({ type: 'integer' })
  readonly status: number;

  @ApiProperty()
  readonly detail: string;

  @ApiProperty({ example: 'invalid_field', description: 'Stable error code (spec §8).' })
  readonly code: string;

  @ApiPropertyOptional({ description: 'The failing field (`invalid_field`).' })
  readonly field?: string;

  @ApiPropertyOptional({ enum: PROBLEM_DISPOSITIONS })
  readonly disposition?: ProblemDisposition;

  @ApiPropertyOptional({ enum: STOP_CAUSES, description: 'Why delivery stopped.' })
  readonly cause?: StopCause;

  @ApiPropertyOptional({ type: 'integer', description: 'Sequence of the original record (`idempotency_collision`).' })
  readonly sequence?: number;

  @ApiPropertyOptional({ format: 'uuid', description: 'The loop that stopped the delivery (`delivery_stopped`).' })
  readonly loop_id?: string;

  @ApiPropertyOptional({
    description:
      '`journal_unavailable`: `true` when the write was under way and may have committed after all (retry the same request to learn which); absent when nothing was written or dispatched.',
  })
  readonly may_have_committed?: boolean;
}
