import { ApiProperty } from '@nestjs/swagger';
import { PendingNotificationDto } from './pending-notification.dto.js';

export class PendingNotificationsDto {
  @ApiProperty({ type: [PendingNotificationDto], description: 'The pending set in acceptance order.' })
  readonly notifications: PendingNotificationDto[];
}
