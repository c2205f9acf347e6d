import type { HeadersObject } from '@nestjs/swagger';
import { IDEMPOTENT_REPLAYED_HEADER, RETRY_AFTER_HEADER } from 'process-notifications-contract';

/** The OpenAPI description of `Idempotent-Replayed`, on the answers that can carry it. */
export const REPLAYED_RESPONSE_HEADER: HeadersObject = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description: '`true` when this answer replays an earlier identical request: nothing new was written. Absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** The OpenAPI description of `Retry-After`, on every 429 and 503. */
export const RETRY_AFTER_RESPONSE_HEADER: HeadersObject = {
  [RETRY_AFTER_HEADER]: {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
  },
};
