import { inSpan } from './library-tracer.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from './trace-names.js';

/**
 * What the span needs of a journal draft and of its append (`JournalDraft`, `JournalAppend` fit):
 * declared here, so tracing, which the journal writer uses, does not import the persistence folder.
 */
interface TracedDraft {
  readonly sessionId: string;
  readonly loopId: string | null;
  readonly kind: string;
  readonly idempotencyId: string;
}
interface TracedAppendResult {
  readonly record: { readonly sequence: number };
  readonly appended: boolean;
}

/**
 * The append of `draft` (`append`, e.g. `journal.append(draft)`) in a `pn.journal.append` span:
 * the caller's wait for the batch that commits its record, with the record's ids, its sequence
 * (on a collision the original's) and whether this call wrote it.
 */
export function tracedAppend<A extends TracedAppendResult>(draft: TracedDraft, append: () => Promise<A>): Promise<A> {
  const ids = {
    [SPAN_ATTRIBUTES.sessionId]: draft.sessionId,
    ...(draft.loopId === null ? {} : { [SPAN_ATTRIBUTES.loopId]: draft.loopId }),
    [draft.kind === 'process_notification' ? SPAN_ATTRIBUTES.commandId : SPAN_ATTRIBUTES.eventId]: draft.idempotencyId,
  };
  return inSpan(SPAN_NAMES.journalAppend, ids, async (span) => {
    const appended = await append();
    span.setAttributes({ [SPAN_ATTRIBUTES.sequence]: appended.record.sequence, [SPAN_ATTRIBUTES.appended]: appended.appended });
    return appended;
  });
}
