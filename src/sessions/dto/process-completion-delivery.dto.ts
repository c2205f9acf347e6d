import { ApiProperty } from '@nestjs/swagger';
import { SUCCESS_DISPOSITIONS, type NotificationDelivery, type SuccessDisposition } from 'nestjs-process-notifications';
import type { CompletionDelivery } from 'process-notifications-contract';

/** Answer of `POST .../process-completions`: 202 when accepted, 200 when duplicate. */
export class ProcessCompletionDeliveryDto implements CompletionDelivery {
  @ApiProperty({ enum: SUCCESS_DISPOSITIONS })
  readonly disposition: SuccessDisposition;

  @ApiProperty({ format: 'uuid' })
  readonly command_id: string;

  @ApiProperty({ type: 'integer', description: 'Journal sequence of the notification (the original one on a retry).' })
  readonly sequence: number;

  @ApiProperty({ description: 'False when an identical earlier call already journaled it.' })
  readonly appended: boolean;

  static from(delivery: NotificationDelivery): ProcessCompletionDeliveryDto {
    return { disposition: delivery.disposition, command_id: delivery.commandId, sequence: delivery.sequence, appended: delivery.appended };
  }
}
