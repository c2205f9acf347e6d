import { Command } from '@nestjs/cqrs';
import type { LifecyclePublication } from './lifecycle-publication.interface.js';

/**
 * Publish a process lifecycle record: session check, validation, idempotent journal append
 * keyed by `event_id`, then the domain event for its kind.
 * @param sessionId the session the call is made for; the record's `session_id` must match it
 * @param record the raw lifecycle record (validated by the handler)
 */
export class PublishProcessLifecycleCommand extends Command<LifecyclePublication> {
  constructor(
    readonly sessionId: string,
    readonly record: unknown,
  ) {
    super();
  }
}
