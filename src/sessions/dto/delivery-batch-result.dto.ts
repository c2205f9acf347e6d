import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import type { CompletionDeliveryResult } from 'process-notifications-contract';
import { ProblemDto } from '../../http/problem.dto.js';
import { ProcessCompletionDeliveryDto } from './process-completion-delivery.dto.js';

/** One notification's answer in a batch delivery: what the single delivery would have answered. */
export class DeliveryBatchResultDto implements CompletionDeliveryResult {
  @ApiProperty({ type: 'integer', description: "The single delivery's status: 202, 200, or a problem's (400, 404, 409, 422, 503...)." })
  readonly status: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: "The single delivery's headers that concern this notification (`retry-after`, `idempotent-replayed`), lower-case.",
  })
  readonly headers: Record<string, string>;

  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(ProcessCompletionDeliveryDto) }, { $ref: getSchemaPath(ProblemDto) }],
    description: 'The delivery (202, 200), or the problem document.',
  })
  readonly body: ProcessCompletionDeliveryDto | ProblemDto;
}

/** Answer of the batch delivery: one result per notification, in the order sent. */
export class DeliveryBatchResultsDto {
  @ApiProperty({ type: [DeliveryBatchResultDto] })
  readonly results: DeliveryBatchResultDto[];
}
