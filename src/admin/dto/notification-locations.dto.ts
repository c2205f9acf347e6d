import { ApiProperty } from '@nestjs/swagger';
import { NotificationLocationDto } from './notification-location.dto.js';

export class NotificationLocationsDto {
  @ApiProperty({ type: [NotificationLocationDto], description: 'One entry per session that journaled the command id.' })
  readonly notifications: NotificationLocationDto[];
}
