import { ApiProperty } from '@nestjs/swagger';
import { IsArray } from 'class-validator';
import { MAX_CONSUME_BATCH, type InputSchema } from 'nestjs-process-notifications';

/** Body of `POST /v1/sessions/:sid/loops/:lid/process-notifications/consume`. The library checks the ids. */
export class ConsumeBatchRequestDto {
  @ApiProperty({
    type: [String],
    format: 'uuid',
    minItems: 1,
    maxItems: MAX_CONSUME_BATCH,
    description: `The notifications to consume, 1 to ${MAX_CONSUME_BATCH}; a repeated id answers consumed: false.`,
  })
  @IsArray()
  readonly command_ids: unknown[];

  static readonly schema: InputSchema = { properties: ['command_ids'] };
}
