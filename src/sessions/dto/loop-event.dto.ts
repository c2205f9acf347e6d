import type { MessageEvent } from '@nestjs/common';
import type { LoopEventView } from 'nestjs-process-notifications';
import { PendingNotificationDto } from './pending-notification.dto.js';

/**
 * One event of `GET /v1/sessions/:sid/loops/:lid/events` as sent: `id:` the journal sequence,
 * `event:` its kind, `data:` a pending-view entry (`notification`; for `outcome` the same
 * entry with its outcome, `sequence` staying the notification's) or `{command_id, sequence}` (`consumed`).
 */
export function loopMessageEvent(event: LoopEventView): MessageEvent {
  const id = String(event.sequence);
  switch (event.kind) {
    case 'notification':
      return { id, type: 'notification', data: PendingNotificationDto.from(event.notification) };
    case 'outcome':
      return { id, type: 'outcome', data: PendingNotificationDto.from(event.notification) };
    case 'consumed':
      return { id, type: 'consumed', data: { command_id: event.commandId, sequence: event.sequence } };
  }
}
