import { ApiProperty } from '@nestjs/swagger';
import { IsArray } from 'class-validator';
import { MAX_DELIVERY_BATCH } from 'process-notifications-contract';
import type { InputSchema } from 'nestjs-process-notifications';
import { PROCESS_COMPLETION_NOTIFICATION_SCHEMA } from '../../http/openapi-schemas.js';

/** Body of `POST /v1/sessions/:sid/process-completions/batch`. The library checks each notification. */
export class DeliveryBatchRequestDto {
  @ApiProperty({
    type: 'array',
    items: PROCESS_COMPLETION_NOTIFICATION_SCHEMA,
    minItems: 1,
    maxItems: MAX_DELIVERY_BATCH,
    description: `The notifications to deliver, 1 to ${MAX_DELIVERY_BATCH}, each checked and answered as the single delivery would be.`,
  })
  @IsArray()
  readonly notifications: unknown[];

  static readonly schema: InputSchema = { properties: ['notifications'] };
}
