import type { HeadersObject } from '@nestjs/swagger';
import { IDEMPOTENT_REPLAYED_HEADER, RETRY_AFTER_HEADER } from 'process-notifications-contract';

/** The OpenAPI description of `Idempotent-Replayed`, on the answers that can carry it. */
export const REPLAYED_RESPONSE_HEADER: HeadersObject = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description: '`true` when this answer replays an earlier identical request: nothing new was written. Absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** The OpenAPI description of `Retry-After`, on every 429 and 503: each of them carries it. */
export const RETRY_AFTER_RESPONSE_HEADER: HeadersObject = {
  [RETRY_AFTER_HEADER]: {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};

/** `Allow`: the methods a path has, on a `405 method_not_allowed` (RFC 9110 section 15.5.6). */
export const ALLOW_HEADER = 'Allow';

/** The OpenAPI description of `Allow`, on every 405. */
export const ALLOW_RESPONSE_HEADER: HeadersObject = {
  [ALLOW_HEADER]: {
    description: 'The methods this path has, comma-separated (`GET, HEAD`, `POST`).',
    required: true,
    schema: { type: 'string', example: 'GET, HEAD' },
  },
};
