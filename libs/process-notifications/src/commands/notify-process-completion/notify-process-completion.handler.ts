import { CommandHandler, EventBus, type ICommandHandler } from '@nestjs/cqrs';
import type { Span } from '@opentelemetry/api';
import { firstValueFrom, map, race, ReplaySubject, type Observable } from 'rxjs';
import { DeliveryStoppedError } from '../../errors/delivery-stopped.error.js';
import { OwnerMismatchError } from '../../errors/owner-mismatch.error.js';
import { UnsupportedEngineError } from '../../errors/unsupported-engine.error.js';
import { ProcessNotificationDispatchRequestedEvent } from '../../events/process-notification-dispatch-requested.event.js';
import { canonicalPayload } from '../../journal/canonical-payload.js';
import type { JournalDraft } from '../../persistence/journal/journal-draft.interface.js';
import { JournalWriter } from '../../persistence/journal/journal-writer.service.js';
import type { LoopAnswer } from '../../loops/process-loop.js';
import { Loops } from '../../loops/loops.service.js';
import { ShutdownSignal } from '../../lifecycle/shutdown-signal.service.js';
import { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { inSpan } from '../../tracing/library-tracer.js';
import { tracedAppend } from '../../tracing/traced-append.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../../tracing/trace-names.js';
import { validateInput } from '../../validation/validate-input.js';
import type { NotificationDelivery } from './notification-delivery.interface.js';
import { NotifyProcessCompletionCommand } from './notify-process-completion.command.js';
import { ProcessCompletionNotificationDto } from './process-completion-notification.dto.js';

const SHUTTING_DOWN: LoopAnswer = { disposition: 'stopped', cause: 'loop_stopped' };

/**
 * Validate, check owner and loop, append to the journal, and only then dispatch to the loop
 * through the LoopSaga, waiting for the loop's answer.
 */
@CommandHandler(NotifyProcessCompletionCommand)
export class NotifyProcessCompletionHandler implements ICommandHandler<NotifyProcessCompletionCommand> {
  // Built once: every waiting caller races its reply against the same stream.
  private readonly shuttingDown$: Observable<LoopAnswer>;

  constructor(
    private readonly loops: Loops,
    private readonly ownership: SessionOwnership,
    private readonly shutdown: ShutdownSignal,
    private readonly journal: JournalWriter,
    private readonly eventBus: EventBus,
  ) {
    this.shuttingDown$ = this.shutdown.shutdown$.pipe(map((): LoopAnswer => SHUTTING_DOWN));
  }

  /** One delivery, in a `pn.notify` span (spec section 13) with `pn.journal.append` and `pn.dispatch` under it. */
  execute(command: NotifyProcessCompletionCommand): Promise<NotificationDelivery> {
    const attributes = { [SPAN_ATTRIBUTES.sessionId]: command.sessionId };
    return inSpan(SPAN_NAMES.notify, attributes, async (span) => {
      const delivery = await this.deliver(command, span);
      span.setAttribute(SPAN_ATTRIBUTES.disposition, delivery.disposition);
      return delivery;
    });
  }

  // The caller's session id as the command normalised it, compared with the DTO's (normalised by its transforms).
  private async deliver(
    { sessionId: caller, notification: input }: NotifyProcessCompletionCommand,
    span: Span,
  ): Promise<NotificationDelivery> {
    const dto = validateInput(ProcessCompletionNotificationDto, ProcessCompletionNotificationDto.schema, input);
    const ids = { [SPAN_ATTRIBUTES.sessionId]: caller, [SPAN_ATTRIBUTES.loopId]: dto.loop_id, [SPAN_ATTRIBUTES.commandId]: dto.command_id };
    span.setAttributes(ids);
    if (dto.session_id !== caller) throw new OwnerMismatchError(caller, dto.session_id);
    // One session lookup: the owned session is where its loop is looked up.
    const session = await this.ownership.ownOpen(dto.session_id);
    const loop = this.loops.require(session, dto.loop_id);
    if (loop.engine !== 'native') throw new UnsupportedEngineError(loop.loopId, loop.engine);

    // Typed from here to the loop: what is journaled is what the loop's entry is built from.
    const notification = canonicalPayload(dto, ProcessCompletionNotificationDto.schema.properties);
    const draft: JournalDraft = {
      sessionId: dto.session_id,
      loopId: dto.loop_id,
      kind: 'process_notification',
      idempotencyId: dto.command_id,
      payload: notification,
    };
    const { record, appended } = await tracedAppend(draft, () => this.journal.append(draft));
    span.setAttribute(SPAN_ATTRIBUTES.sequence, record.sequence);
    const pending = loop.pendingEntry(notification, record.sequence);

    const answer = await inSpan(SPAN_NAMES.dispatch, { ...ids, [SPAN_ATTRIBUTES.sequence]: record.sequence }, async (dispatchSpan) => {
      // Journaled: now the loop's turn (LoopSaga -> DispatchProcessNotificationHandler).
      const reply = new ReplaySubject<LoopAnswer>(1);
      this.eventBus.publish(new ProcessNotificationDispatchRequestedEvent(pending, appended, reply));
      // During shutdown the saga may already be unsubscribed: answer stopped rather than hang. The
      // notification is journaled, so the restart restores it and the supervisor's retry finds it.
      const loopAnswer = await firstValueFrom(race(reply, this.shuttingDown$));
      dispatchSpan.setAttribute(SPAN_ATTRIBUTES.disposition, loopAnswer.disposition);
      return loopAnswer;
    });
    if (answer.disposition === 'stopped') throw new DeliveryStoppedError(loop.loopId, answer.cause, appended);
    return { disposition: answer.disposition, commandId: dto.command_id, sequence: record.sequence, appended };
  }
}
