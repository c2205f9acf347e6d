import { ProcessNotificationsError } from './process-notifications.error.js';

/** The idempotency id was already journaled with a different payload; nothing was dispatched. */
export class IdempotencyCollisionError extends ProcessNotificationsError {
  readonly code = 'idempotency_collision';
  override readonly disposition = 'collision' as const;

  constructor(
    readonly idempotencyId: string,
    readonly sequence: number,
  ) {
    super(`id ${idempotencyId} was already journaled at sequence ${sequence} with a different payload`);
  }
}
