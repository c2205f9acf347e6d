import { ApiProperty } from '@nestjs/swagger';
import { NotificationLocationDto } from './notification-location.dto.js';
import { RefusalDto } from './refusal.dto.js';
import type { NotificationLocations } from 'process-notifications-contract';

export class NotificationLocationsDto implements NotificationLocations {
  @ApiProperty({ type: [NotificationLocationDto], description: 'One entry per session that journaled the command id.' })
  readonly notifications: NotificationLocationDto[];

  @ApiProperty({
    type: [RefusalDto],
    description: 'The refusals of deliveries under this command id that are still kept (a collision among them), newest first.',
  })
  readonly refusals: RefusalDto[];
}
