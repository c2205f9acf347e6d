import { ProcessNotificationsError } from './process-notifications.error.js';

/** The idempotency id was already journaled with a different payload; nothing was dispatched. */
export class IdempotencyCollisionError extends ProcessNotificationsError {
  readonly code = 'idempotency_collision';
  override readonly disposition = 'collision' as const;

  /**
   * @param sequence the original's journal sequence
   * @param differingFields names of the payload fields whose values differ from the original's,
   *   sorted (names only: a value may be a secret); empty when the original's payload was dropped
   *   by retention and cannot be compared
   */
  constructor(
    readonly idempotencyId: string,
    readonly sequence: number,
    readonly differingFields: readonly string[] = [],
  ) {
    super(`id ${idempotencyId} was already journaled at sequence ${sequence} with a different payload`);
  }
}
