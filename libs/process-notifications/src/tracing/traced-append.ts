import type { JournalAppend, JournalDraft } from '../persistence/journal-draft.interface.js';
import { inSpan } from './library-tracer.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from './trace-names.js';

/**
 * The append of `draft` (`append`, e.g. `journal.append(draft)`) in a `pn.journal.append` span:
 * the caller's wait for the batch that commits its record, with the record's ids, its sequence
 * (on a collision the original's) and whether this call wrote it.
 */
export function tracedAppend(draft: JournalDraft, append: () => Promise<JournalAppend>): Promise<JournalAppend> {
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
