import type { Span } from '@opentelemetry/api';
import { CommandHandler, EventBus, type ICommandHandler } from '@nestjs/cqrs';
import { OwnerMismatchError } from '../../errors/owner-mismatch.error.js';
import { ProcessBackgroundedEvent } from '../../events/process-backgrounded.event.js';
import { ProcessCompletedEvent } from '../../events/process-completed.event.js';
import type { ProcessLifecycleRecord } from '../../model/process-lifecycle-record.interface.js';
import { ProcessLostEvent } from '../../events/process-lost.event.js';
import { ProcessStartedEvent } from '../../events/process-started.event.js';
import { ProcessStopRequestedEvent } from '../../events/process-stop-requested.event.js';
import { canonicalPayload } from '../../journal/canonical-payload.js';
import { JournalWriter } from '../../persistence/journal/journal-writer.service.js';
import { SessionOwnership } from '../../cluster/session-ownership.service.js';
import type { JournalDraft } from '../../persistence/journal/journal-draft.interface.js';
import { ProcessOutcomes } from '../../persistence/outcomes/process-outcomes.service.js';
import { inSpan } from '../../tracing/library-tracer.js';
import { tracedAppend } from '../../tracing/traced-append.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../../tracing/trace-names.js';
import { normaliseId } from '../../validation/normalise-id.js';
import { validateInput } from '../../validation/validate-input.js';
import type { LifecycleKind } from '../../vocabulary/process-vocabulary.js';
import type { LifecyclePublication } from './lifecycle-publication.interface.js';
import { ProcessLifecycleRecordDto } from './process-lifecycle-record.dto.js';
import { PublishProcessLifecycleCommand } from './publish-process-lifecycle.command.js';

const EVENT_OF: Record<LifecycleKind, new (record: ProcessLifecycleRecord, sequence: number, createdAt: string) => object> = {
  started: ProcessStartedEvent,
  backgrounded: ProcessBackgroundedEvent,
  completed: ProcessCompletedEvent,
  stop_requested: ProcessStopRequestedEvent,
  lost: ProcessLostEvent,
};

/**
 * Owner check, validation, idempotent journal append keyed by `event_id` (with the outcome link
 * of a record that names its `command_id`), and only for a record this call wrote, the domain
 * event of its kind.
 */
@CommandHandler(PublishProcessLifecycleCommand)
export class PublishProcessLifecycleHandler implements ICommandHandler<PublishProcessLifecycleCommand> {
  constructor(
    private readonly ownership: SessionOwnership,
    private readonly journal: JournalWriter,
    private readonly eventBus: EventBus,
    private readonly outcomes: ProcessOutcomes,
  ) {}

  /** One record, in a `pn.lifecycle` span (spec section 13) with `pn.journal.append` under it. */
  execute(command: PublishProcessLifecycleCommand): Promise<LifecyclePublication> {
    const attributes = { [SPAN_ATTRIBUTES.sessionId]: command.sessionId };
    // A lifecycle record has no disposition of its own: only a collision names one.
    return inSpan(SPAN_NAMES.lifecycle, attributes, (span) => this.publish(command, span), { dispositions: ['collision'] });
  }

  // The caller's session id as the command normalised it.
  private async publish({ sessionId: caller, record }: PublishProcessLifecycleCommand, span: Span): Promise<LifecyclePublication> {
    // The contract checks the owner before validation: a record for another session is refused
    // as such even when it is also malformed.
    const claimed =
      typeof record === 'object' && record !== null && Object.hasOwn(record, 'session_id')
        ? (record as { session_id: unknown }).session_id
        : undefined;
    // Raw input, not validated yet: normalised here, where it enters.
    if (typeof claimed === 'string' && normaliseId(claimed) !== caller) {
      throw new OwnerMismatchError(caller, normaliseId(claimed));
    }
    const dto = validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, record);
    span.setAttributes({
      [SPAN_ATTRIBUTES.loopId]: dto.loop_id,
      [SPAN_ATTRIBUTES.eventId]: dto.event_id,
      [SPAN_ATTRIBUTES.kind]: dto.kind,
    });
    await this.ownership.ownOpen(caller);

    // Table order, only the fields sent: an identical retry is byte-identical, so it de-duplicates.
    const payload = canonicalPayload(dto, ProcessLifecycleRecordDto.schema.properties);
    const draft: JournalDraft = { sessionId: caller, loopId: dto.loop_id, kind: dto.kind, idempotencyId: dto.event_id, payload };
    // A record that names its notification links it in the same transaction (section 14), so the
    // outcome is there exactly when the record is.
    const { record: entry, appended } = await tracedAppend(draft, () =>
      dto.command_id === undefined
        ? this.journal.append(draft)
        : this.journal.write(
            async (store, journal) => {
              const append = await journal.append(draft);
              if (append.appended) await this.outcomes.link(store, journal, caller, append.record.sequence, dto);
              return append;
            },
            caller,
            // Appended first: on PostgreSQL inserted with the batch's other appends.
            [draft],
          ),
    );
    span.setAttribute(SPAN_ATTRIBUTES.sequence, entry.sequence);
    if (appended) {
      const published: ProcessLifecycleRecord = Object.freeze(payload);
      this.eventBus.publish(new EVENT_OF[dto.kind](published, entry.sequence, entry.createdAt));
    }
    return { eventId: dto.event_id, sequence: entry.sequence, appended };
  }
}
