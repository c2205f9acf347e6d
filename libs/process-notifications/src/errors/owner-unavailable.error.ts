import { ProcessNotificationsError } from './process-notifications.error.js';

/**
 * Another node owns the session and cannot answer now, or this node just lost the session's
 * lease (spec section 9). Nothing was written; retry after `retryAfterSeconds`.
 */
export class OwnerUnavailableError extends ProcessNotificationsError {
  readonly code = 'owner_unavailable';

  constructor(
    readonly sessionId: string,
    /** Whole seconds until the owner's lease expires, at least 1. */
    readonly retryAfterSeconds: number,
    reason: string,
  ) {
    super(`the owner of session ${sessionId} is unavailable: ${reason}`);
  }
}
