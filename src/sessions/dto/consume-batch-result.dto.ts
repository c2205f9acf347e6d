import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { NotificationConsumptionResult } from 'nestjs-process-notifications';

/** One command id's answer: `{command_id, consumed, sequence}`, or `{command_id, code: "not_found"}`. */
export class ConsumeBatchResultDto {
  @ApiProperty({ format: 'uuid' })
  readonly command_id: string;

  @ApiPropertyOptional({ description: 'False when it had already been consumed (or earlier in this batch).' })
  readonly consumed?: boolean;

  @ApiPropertyOptional({ type: 'integer', description: 'Journal sequence of the consumed record.' })
  readonly sequence?: number;

  @ApiPropertyOptional({ enum: ['not_found'], description: 'No notification of this command id was journaled for the loop.' })
  readonly code?: 'not_found';

  static from(result: NotificationConsumptionResult): ConsumeBatchResultDto {
    return 'notFound' in result
      ? { command_id: result.commandId, code: 'not_found' }
      : { command_id: result.commandId, consumed: result.consumed, sequence: result.sequence };
  }
}

/** Answer of the batch consume: one result per command id, in the order given. */
export class ConsumeBatchResultsDto {
  @ApiProperty({ type: [ConsumeBatchResultDto] })
  readonly results: ConsumeBatchResultDto[];
}
