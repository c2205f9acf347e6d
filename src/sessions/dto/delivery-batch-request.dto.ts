import { ApiProperty } from '@nestjs/swagger';
import { MAX_DELIVERY_BATCH } from 'process-notifications-contract';
import { ValidationError } from 'nestjs-process-notifications';
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
  readonly notifications: unknown[];

  /**
   * The body as a closed schema (the answers `validateInput` gives: an unknown property named as
   * the field, `notifications` not an array of 1 to {@link MAX_DELIVERY_BATCH}), checked by hand:
   * class-transformer would copy every notification deep before the library checks each anyway
   * (a tenth of the route's CPU in the server's profile).
   */
  static of(input: unknown): DeliveryBatchRequestDto {
    // No body at all is `{}`, as for the routes' closed-schema pipe.
    const body = input === undefined ? {} : input;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ValidationError('notifications', 'expected a JSON object');
    for (const key of Object.keys(body)) if (key !== 'notifications') throw new ValidationError(key, `unknown property "${key}"`);
    const { notifications } = body as { notifications?: unknown };
    if (!Array.isArray(notifications)) throw new ValidationError('notifications', 'notifications must be an array');
    if (notifications.length < 1 || notifications.length > MAX_DELIVERY_BATCH) {
      throw new ValidationError(
        'notifications',
        `notifications takes 1 to ${MAX_DELIVERY_BATCH} notifications, got ${notifications.length}`,
      );
    }
    return { notifications };
  }
}
