import { Command } from '@nestjs/cqrs';
import { normaliseId } from '../../validation/normalise-id.js';
import type { LifecyclePublication } from './lifecycle-publication.interface.js';

/**
 * Publish a process lifecycle record: session check, validation, idempotent journal append
 * keyed by `event_id`, then the domain event for its kind.
 * @param sessionId the session the call is made for, any case (held normalised, see `normaliseId`);
 *   the record's `session_id` must match it
 * @param record the raw lifecycle record (validated by the handler)
 */
export class PublishProcessLifecycleCommand extends Command<LifecyclePublication> {
  readonly sessionId: string;

  constructor(
    sessionId: string,
    readonly record: unknown,
  ) {
    super();
    this.sessionId = normaliseId(sessionId);
  }
}
